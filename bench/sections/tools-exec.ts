// Command execution, in this process standing for the kernel (the tools run there):
//
// - shell output to a subscriber: the shell tool runs a command printing 256 MB
//   (`yes | head -c`), every chunk goes through ctx.progress to a subscriber that counts it;
//   MB/s from the call to its result, without and with the sandbox (when bwrap works here);
//   target ≥ 50 MB/s;
// - a job printing 1 GB: the growth of this process's RSS while it runs (peak less before),
//   and the most its output took on disk (the ring keeps 8 MiB). RSS climbs by up to ~64 MB
//   (V8 frees the read chunks once that much of them is garbage) and then stays flat: the
//   same job printing 3 GB adds nothing more;
// - a shell round trip: `echo hi` through startCommand to its end, in the sandbox, in one
//   session (its snapshot taken first, as the session's first step does), p50 of 50 after 5
//   of warm-up; with an empty HOME and with a profile that takes ~50 ms.
import { mkdtempSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { createJobManager } from '../../src/tools/exec/jobs.ts'
import { startCommand } from '../../src/tools/exec/process.ts'
import { sandboxStatus } from '../../src/tools/exec/sandbox.ts'
import { ShellSession } from '../../src/tools/exec/session.ts'
import { createShellTool } from '../../src/tools/exec/shell.ts'
import type { SandboxPolicy, ToolContext } from '../../src/tools/types.ts'
import { mb, median, type Row, type Section } from '../lib.ts'

const SHELL_BYTES = 256 * 1024 * 1024
const JOB_BYTES = 1024 * 1024 * 1024
const TARGET_MB_S = 50

async function shellThroughput(workspace: string, sandbox: SandboxPolicy): Promise<number> {
  let received = 0
  const ctx: ToolContext = {
    workspace,
    allowedRoots: [],
    signal: new AbortController().signal,
    progress: (chunk) => {
      // stdout only: a login profile may say something on stderr (pyenv does, in the sandbox).
      if (chunk.stream === 'stdout') received += chunk.text.length
    },
    sandbox,
    jobs: createJobManager({ dir: workspace }),
    runId: 'bench',
    shell: new ShellSession(),
  }
  const started = performance.now()
  const r = await createShellTool().run({ command: `yes hearth | head -c ${SHELL_BYTES}` }, ctx)
  const seconds = (performance.now() - started) / 1000
  ctx.shell?.close()
  if (r.outcome !== 'ok' || received !== SHELL_BYTES)
    throw new Error(`shell bench: ${r.outcome}, ${received} bytes`)
  return SHELL_BYTES / 1e6 / seconds
}

async function jobFootprint(dir: string): Promise<{ rss: number; disk: number; seconds: number }> {
  const jobs = createJobManager({ dir })
  const before = process.memoryUsage().rss
  let peak = before
  let disk = 0
  const started = performance.now()
  const job = jobs.start(`yes hearth | head -c ${JOB_BYTES}`, {
    cwd: dir,
    sandbox: { isolate: false, network: false },
    allowedRoots: [],
    runId: 'bench',
  })
  const out = join(dir, readdirSync(dir).find((n) => n.startsWith('hearth-job-')) as string)
  while (jobs.list().find((j) => j.id === job.id)?.state === 'running') {
    peak = Math.max(peak, process.memoryUsage().rss)
    disk = Math.max(disk, sizeOf(out))
    await sleep(20)
  }
  const seconds = (performance.now() - started) / 1000
  await jobs.stopAll()
  return { rss: peak - before, disk, seconds }
}

/** p50 of `echo hi` from startCommand to its end, sandboxed, in one session with `profile`. */
async function shellRoundTrip(workspace: string, profile: string): Promise<number> {
  // Outside /tmp: the sandbox has a /tmp of its own, and the profile must be readable there.
  const home = mkdtempSync('/var/tmp/hearth-bench-home-')
  try {
    writeFileSync(join(home, '.bash_profile'), profile)
    const shell = new ShellSession({ env: { ...process.env, HOME: home } })
    const where = { cwd: workspace, policy: { isolate: true, network: false }, writableRoots: [workspace] }
    await shell.snapshot(where)
    const times: number[] = []
    for (let i = 0; i < 55; i++) {
      const started = performance.now()
      const end = await startCommand({ command: 'echo hi', ...where, shell }).done
      if (end.exitCode !== 0) throw new Error(`shell round trip: exit ${end.exitCode}`)
      if (i >= 5) times.push(performance.now() - started)
    }
    shell.close()
    return median(times)
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
}

function sizeOf(dir: string): number {
  try {
    return readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0)
  } catch {
    return 0
  }
}

export const toolsExec: Section = {
  name: 'exec',
  description:
    'shell output to a subscriber (256 MB), a shell round trip, RSS and disk while a job prints 1 GB',
  async run(): Promise<Row[]> {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-bench-exec-')))
    try {
      const rows: Row[] = []
      const direct = await shellThroughput(dir, { isolate: false, network: false })
      rows.push({
        figure: 'shell output to a subscriber',
        measured: `${direct.toFixed(0)} MB/s`,
        target: `≥ ${TARGET_MB_S} MB/s`,
        ok: direct >= TARGET_MB_S,
      })
      if (sandboxStatus().available) {
        const boxed = await shellThroughput(dir, { isolate: true, network: false })
        rows.push({
          figure: 'shell output to a subscriber, in bwrap',
          measured: `${boxed.toFixed(0)} MB/s`,
          target: `≥ ${TARGET_MB_S} MB/s`,
          ok: boxed >= TARGET_MB_S,
        })
      }
      if (sandboxStatus().available)
        for (const [which, profile] of [
          ['empty HOME', ''],
          ['a ~50 ms profile', 'sleep 0.05\nexport FROM_PROFILE=1\n'],
        ]) {
          const p50 = await shellRoundTrip(dir, profile)
          rows.push({
            figure: `shell round trip (echo hi), in bwrap, ${which}: p50 of 50`,
            measured: `${p50.toFixed(1)} ms`,
          })
        }
      const job = await jobFootprint(dir)
      rows.push({ figure: 'job printing 1 GB: RSS growth', measured: mb(job.rss) })
      rows.push({ figure: 'job printing 1 GB: disk at most', measured: mb(job.disk) })
      rows.push({
        figure: 'job printing 1 GB: rate',
        measured: `${(JOB_BYTES / 1e6 / job.seconds).toFixed(0)} MB/s`,
      })
      return rows
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  },
}
