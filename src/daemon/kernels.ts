// The kernel pool the daemon starts with: where the kernel bundle is, and how long kernels
// are kept and how many runs one takes, each overridden by a HEARTH_KERNEL_* variable (the
// tests lower them). Kept apart from ./run.ts, which only starts the pool and closes it.

import { fileURLToPath } from 'node:url'
import type { DaemonLog } from '../deferred-log.ts'
import { KernelPool } from '../kernel/pool.ts'

/** How long an idle session keeps its kernel; HEARTH_KERNEL_IDLE_MS overrides. */
const KERNEL_IDLE_MS = 30_000
/**
 * How long the reserve kernel process is kept after the daemon's last activity (a session
 * created, a run started); HEARTH_KERNEL_SPARE_IDLE_MS overrides. An idle daemon is back
 * to its own process at most this long after its last run ended (sessions give their
 * kernels up after KERNEL_IDLE_MS), well inside five minutes.
 */
const KERNEL_SPARE_IDLE_MS = 120_000
/** Runs one kernel process takes at most at once; HEARTH_KERNEL_CAPACITY overrides (docs/architecture.md, "Kernels"). */
const KERNEL_CAPACITY = 16

function positiveInt(value: string | undefined, fallback: number): number {
  const n = Number(value)
  return Number.isSafeInteger(n) && n > 0 ? n : fallback
}

export function kernelPool(log: DaemonLog, home: string, env: NodeJS.ProcessEnv = process.env): KernelPool {
  return new KernelPool({
    // Commands run by tools must not see the home (tokens, keys): the sandbox hides it.
    env: { HEARTH_HOME: home },
    // The kernel bundle sits beside the daemon bundle (scripts/build.mjs); HEARTH_KERNEL_BUNDLE
    // names another file (the upgrade tests replace it while the daemon runs).
    entry: env.HEARTH_KERNEL_BUNDLE || fileURLToPath(new URL('./kernel.mjs', import.meta.url)),
    idleMs: positiveInt(env.HEARTH_KERNEL_IDLE_MS, KERNEL_IDLE_MS),
    spare: env.HEARTH_KERNEL_SPARE !== '0',
    spareIdleMs: positiveInt(env.HEARTH_KERNEL_SPARE_IDLE_MS, KERNEL_SPARE_IDLE_MS),
    capacity: positiveInt(env.HEARTH_KERNEL_CAPACITY, KERNEL_CAPACITY),
    onEvent: ({ event, ...fields }) => log.info(fields, event.replaceAll('_', ' ')),
  })
}
