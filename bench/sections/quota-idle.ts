// The quota poller at rest: a daemon whose 50 API-key profiles are polled (each by a usage
// core that prints one report) against a daemon with none, and against one with the same 50
// profiles and polling off (what the profiles themselves cost), all idle once the first
// round is recorded. The daemon's CPU over a quiet window and its RSS after it; the daemons
// are measured in turn, twice, so the machine's load falls on each alike.
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  type BenchDaemon,
  homeWithConfig,
  mb,
  memoryOf,
  ms,
  type Row,
  spawnDaemon,
  tempHome,
} from '../lib.ts'

const ACCOUNTS = 50
const QUIET_MS = 10_000
const ROUNDS = 2

/** A usage core that answers every poll with one z.ai report (the feed of api.z.ai keys). */
export function stubCore(dir: string): string {
  const path = join(dir, 'usage-core.sh')
  const resets = new Date(Date.now() + 3 * 3_600_000).toISOString()
  const report = {
    provider: 'zai',
    source: 'api',
    usage: { primary: { usedPercent: 12, windowMinutes: 300, resetsAt: resets } },
    error: null,
  }
  writeFileSync(path, `#!/bin/sh\nprintf '%s\\n' '${JSON.stringify(report)}'\n`)
  chmodSync(path, 0o755)
  return path
}

/** A home with ACCOUNTS API-key profiles of a host that has a usage feed (polling off if asked). */
export function homeWithAccounts(polling = true): string {
  const profiles: Record<string, unknown> = {}
  const keys: Record<string, unknown> = {}
  for (let i = 0; i < ACCOUNTS; i++) {
    const name = `glm${String(i).padStart(2, '0')}`
    profiles[name] = {
      endpoint: 'https://api.z.ai/api/paas/v4',
      protocol: 'chat_completions',
      model: 'glm-4.6',
    }
    keys[name] = { apiKey: `bench-key-${i}` }
  }
  const home = homeWithConfig({ providers: { default_profile: 'glm00', profiles } })
  writeFileSync(join(home, 'creds.json'), JSON.stringify({ providers: keys }), { mode: 0o600 })
  if (!polling) writeFileSync(join(home, 'extensions.json'), JSON.stringify({ quota: { enabled: false } }))
  return home
}

async function latestCount(d: BenchDaemon): Promise<number> {
  const res = await fetch(`${d.url}/server`, { headers: { authorization: `Bearer ${d.token}` } })
  const body = (await res.json()) as { quota: unknown[] | null }
  return body.quota?.length ?? 0
}

/** The daemon's own CPU on a core, all its threads, in ms (/proc/PID/task/TID/schedstat, ns). */
function daemonCpuMs(pid: number): number {
  let ns = 0
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0])
    } catch {} // a thread that ended meanwhile
  }
  return ns / 1e6
}

async function quietWindow(d: BenchDaemon): Promise<{ cpuMs: number; rss: number }> {
  const before = daemonCpuMs(d.pid)
  await sleep(QUIET_MS)
  return { cpuMs: daemonCpuMs(d.pid) - before, rss: memoryOf(d.pid).rss }
}

export async function quotaIdleRows(): Promise<Row[]> {
  const coreDir = tempHome('hearth-bench-core-')
  const polled = await spawnDaemon(homeWithAccounts(), { env: { HEARTH_USAGE_CORE: stubCore(coreDir) } })
  const none = await spawnDaemon()
  const off = await spawnDaemon(homeWithAccounts(false), { env: { HEARTH_USAGE_CORE: stubCore(coreDir) } })
  try {
    const deadline = Date.now() + 60_000
    while ((await latestCount(polled)) < ACCOUNTS) {
      if (Date.now() > deadline) throw new Error(`fewer than ${ACCOUNTS} accounts polled in 60 s`)
      await sleep(100)
    }
    await sleep(2000) // the round's last recording, its checkpoint
    type Window = { cpuMs: number; rss: number }
    const seen = { polled: [] as Window[], none: [] as Window[], off: [] as Window[] }
    for (let r = 0; r < ROUNDS; r++) {
      seen.polled.push(await quietWindow(polled))
      seen.none.push(await quietWindow(none))
      seen.off.push(await quietWindow(off))
    }
    const cpu = (xs: { cpuMs: number }[]) => xs.map((x) => ms(x.cpuMs, 1)).join(' / ')
    const rss = (xs: { rss: number }[]) => xs.map((x) => mb(x.rss)).join(' / ')
    return [
      {
        figure: `idle daemon CPU per ${QUIET_MS / 1000} s, ${ACCOUNTS} accounts polled (runs)`,
        measured: cpu(seen.polled),
        target: 'no more than with none',
      },
      { figure: `idle daemon CPU per ${QUIET_MS / 1000} s, no accounts (runs)`, measured: cpu(seen.none) },
      { figure: `idle daemon RSS, ${ACCOUNTS} accounts polled (runs)`, measured: rss(seen.polled) },
      { figure: 'idle daemon RSS, no accounts (runs)', measured: rss(seen.none) },
      {
        figure: `idle daemon CPU per ${QUIET_MS / 1000} s, ${ACCOUNTS} accounts, polling off`,
        measured: cpu(seen.off),
      },
      { figure: `idle daemon RSS, ${ACCOUNTS} accounts, polling off`, measured: rss(seen.off) },
    ]
  } finally {
    await Promise.all([polled.stop(), none.stop(), off.stop()])
  }
}
