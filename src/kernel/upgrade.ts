// A session's kernel upgrade, daemon side: stage a process of the kernel bundle on disk,
// validate it, then swap the session onto it. Nothing of the old kernel is touched until the
// new one has passed validation, so a failed stage or validation leaves the session on its
// old kernel with its jobs. Only the swap stops jobs (they are children of the old process
// and cannot move); those are returned, stopped, never restarted. The caller
// (src/runs/session-kernel/upgrade.ts) holds the session idle and records the stages.
import type { JobInfo } from '../tools/types.ts'
import type { Kernel, KernelPool } from './pool.ts'
import type { KernelProcess } from './process.ts'
import { type FromKernel, KERNEL_PROTOCOL } from './protocol.ts'

export type UpgradeStage = 'staging' | 'validating' | 'swapping'

export type KernelUpgrade =
  /** The session has no kernel: nothing to swap; its next run starts on the bundle on disk. */
  | { outcome: 'not_running' }
  /** The session's kernel already runs the bundle on disk. */
  | { outcome: 'current'; kernel: Kernel }
  | { outcome: 'upgraded'; from: Kernel; to: Kernel; stopped: JobInfo[] }
  | { outcome: 'failed'; stage: UpgradeStage; detail: string; from: Kernel; stopped: JobInfo[] }

export interface UpgradeLimits {
  /** How long the staged process may take to start and warm up. */
  readyMs: number
  /** How long it may take to answer a ping. */
  pingMs: number
  /** How long the old kernel's jobs may take to stop. */
  jobsMs: number
}

export const UPGRADE_LIMITS: UpgradeLimits = { readyMs: 30_000, pingMs: 5_000, jobsMs: 5_000 }

export async function upgradeKernel(
  pool: KernelPool,
  sessionId: string,
  onStage: (stage: UpgradeStage) => void,
  limits: UpgradeLimits = UPGRADE_LIMITS,
): Promise<KernelUpgrade> {
  const from = pool.current(sessionId)
  if (!from) return { outcome: 'not_running' }
  if (!pool.stale(sessionId)) return { outcome: 'current', kernel: from }
  pool.hold(sessionId)
  onStage('staging')
  const staged = pool.stage()
  const failed = (stage: UpgradeStage, detail: string, stopped: JobInfo[] = []): KernelUpgrade => {
    pool.unstage(staged)
    return { outcome: 'failed', stage, detail, from, stopped }
  }
  const started = await within(staged.ready, limits.readyMs)
  if (staged.refusal) return failed('validating', `The new kernel was refused: ${staged.refusal}`)
  if (!started || !staged.alive)
    return failed('staging', `The new kernel did not start: ${howItEnded(staged)}`)
  onStage('validating')
  const pong = await ping(staged, limits.pingMs)
  if (!pong) return failed('validating', `The new kernel did not answer a ping: ${howItEnded(staged)}`)
  if (pong.protocol !== KERNEL_PROTOCOL || pong.build !== staged.build)
    return failed(
      'validating',
      `The new kernel answered a ping as protocol ${pong.protocol}, build ${pong.build}; this daemon speaks ${KERNEL_PROTOCOL}`,
    )
  onStage('swapping')
  const stopped = await stopJobs(from, limits.jobsMs)
  // The new process may have gone while the jobs stopped, before its exit was heard: it is
  // asked again rather than assumed alive. If it is gone, the session keeps its old kernel.
  if (!staged.alive || !from.alive || (await ping(staged, limits.pingMs)) === null)
    return failed('swapping', `A kernel exited during the swap: ${howItEnded(staged)}`, stopped)
  return { outcome: 'upgraded', from, to: pool.swap(sessionId, staged), stopped }
}

/** Stops the session's jobs on its old kernel; returns those that ran (they are not restarted). */
async function stopJobs(k: Kernel, ms: number): Promise<JobInfo[]> {
  const running = k.liveJobs
  if (running.length === 0) return []
  const gone = new Promise<void>((resolve) => {
    const told = k.onJobs
    k.onJobs = (jobs) => {
      told?.(jobs)
      if (!jobs.some((j) => j.state === 'running')) resolve()
    }
  })
  k.send({ type: 'stop_jobs', session_id: k.sessionId })
  await within(gone, ms)
  return running
}

function ping(p: KernelProcess, ms: number): Promise<Extract<FromKernel, { type: 'pong' }> | null> {
  const id = Math.floor(Math.random() * 2 ** 31)
  return new Promise((resolve) => {
    const done = (answer: Extract<FromKernel, { type: 'pong' }> | null) => {
      clearTimeout(timer)
      p.proc.off('message', onMessage)
      p.proc.off('exit', onExit)
      resolve(answer)
    }
    const onMessage = (msg: FromKernel) => {
      if (msg.type === 'pong' && msg.id === id) done(msg)
    }
    const onExit = () => done(null)
    const timer = setTimeout(() => done(null), ms)
    p.proc.on('message', onMessage)
    p.proc.on('exit', onExit)
    p.send({ type: 'ping', id })
  })
}

function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms)
    void p.then(() => {
      clearTimeout(timer)
      resolve(true)
    })
  })
}

function howItEnded(p: KernelProcess): string {
  if (p.proc.signalCode) return `it was ended by ${p.proc.signalCode}`
  if (p.proc.exitCode !== null) return `it exited with code ${p.proc.exitCode}`
  return 'it did not answer in time'
}
