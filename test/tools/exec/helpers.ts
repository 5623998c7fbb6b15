// Shared pieces of the exec tests: a ToolContext on a temp workspace, and a look at /proc to
// find the processes a command left behind.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createJobManager } from '../../../src/tools/exec/jobs.ts'
import { ShellSession } from '../../../src/tools/exec/session.ts'
import type { JobManager, SandboxPolicy, ToolContext, ToolProgress } from '../../../src/tools/types.ts'

export const DIRECT: SandboxPolicy = { isolate: false, network: true }
export const ISOLATED: SandboxPolicy = { isolate: true, network: false }

export interface TestContext {
  ctx: ToolContext
  progress: ToolProgress[]
  abort: AbortController
  root: string
  workspace: string
  jobs: JobManager
  cleanup: () => Promise<void>
}

export function makeContext(sandbox: SandboxPolicy = DIRECT, jobs?: JobManager): TestContext {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-exec-test-')))
  const workspace = join(root, 'ws')
  mkdirSync(workspace, { recursive: true })
  const progress: ToolProgress[] = []
  const abort = new AbortController()
  const manager = jobs ?? createJobManager({ home: join(root, 'home'), dir: root })
  const shell = new ShellSession({ home: join(root, 'home') })
  const ctx: ToolContext = {
    workspace,
    allowedRoots: [],
    signal: abort.signal,
    progress: (chunk) => progress.push(chunk),
    sandbox,
    jobs: manager,
    runId: 'run-1',
    shell,
  }
  return {
    ctx,
    progress,
    abort,
    root,
    workspace,
    jobs: manager,
    cleanup: async () => {
      abort.abort()
      await manager.stopAll()
      ctx.shell?.close()
      shell.close()
      rmSync(root, { recursive: true, force: true })
    },
  }
}

/** A unique `sleep` argument: finds the sleeps a test started, and only those. */
export function marker(): string {
  return `${300 + Math.floor(Math.random() * 1000)}.${process.pid}${Math.floor(Math.random() * 1e6)}`
}

/** Live (not zombie) processes whose command line contains `needle`. */
export function processesWith(needle: string): number[] {
  const found: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ')
      if (!cmdline.includes(needle)) continue
      if (processState(Number(name)) !== 'Z') found.push(Number(name))
    } catch {}
  }
  return found
}

/** Live `sleep <m>` processes themselves (not the shells whose command line names them). */
export function sleepsOf(m: string): number[] {
  return processesWith(`sleep ${m}`).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\0${m}\0`
    } catch {
      return false
    }
  })
}

/** Live (not zombie) processes in process group `pgid`. */
export function groupMembers(pgid: number): number[] {
  const found: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') found.push(Number(name))
    } catch {}
  }
  return found
}

function processState(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
}

export const text = (progress: ToolProgress[], stream?: 'stdout' | 'stderr') =>
  progress
    .filter((p) => !stream || p.stream === stream)
    .map((p) => p.text)
    .join('')
