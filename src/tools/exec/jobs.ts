// Background jobs: commands that outlive the call that started them (servers, watchers, long
// builds). Each runs like a shell call (same sandbox, environment and process group) but its
// output goes to a bounded ring of files in a temporary directory of its own, read later by
// offset. A job ends when its command exits, when it is stopped (job_stop), when the run
// that started it is interrupted (stopForRun), or when the session goes or the kernel shuts
// down (stopAll). The kernel hears of every change through onChange, to report
// `kernel.running_jobs`; growing output is reported at most once per interval.
import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { JobInfo, JobManager, JobOutput, JobStartOptions, JobState } from '../types.ts'
import { charLength, completeLength, leadingContinuation } from './capture.ts'
import { type OutputStream, type RunningCommand, startCommand } from './process.ts'
import { OutputRing } from './ring.ts'

export interface JobManagerOptions {
  /** Hearth's home, hidden from jobs in the sandbox (default: HEARTH_HOME or ~/.hearth). */
  home?: string
  /** Jobs running at once; one more is refused (default 8). */
  maxJobs?: number
  /** Output kept on disk per job, in bytes (default 8 MiB); older output is dropped. */
  maxOutputBytes?: number
  /** Finished jobs remembered (with their output) for later reads (default 32). */
  maxFinished?: number
  /** Called with every job when one starts, ends or is stopped, and as output grows. */
  onChange?: (jobs: JobInfo[]) => void
  /** The least time between two onChange calls for output alone (default 1000 ms). */
  changeIntervalMs?: number
  /** Where the jobs' output directories go (default the OS temp dir). */
  dir?: string
  /** The environment to scrub and pass (the kernel's by default). */
  env?: NodeJS.ProcessEnv
  /** Between SIGTERM and SIGKILL when a job is stopped. */
  graceMs?: number
}

/** The most one read returns, whatever is asked. */
export const MAX_READ_BYTES = 1024 * 1024
/** How much of a job's command JobInfo carries. */
const COMMAND_SHOWN_CHARS = 1000

interface Job {
  id: string
  command: string
  runId: string
  startedAt: string
  state: JobState
  exitCode: number | null
  stopRequested: boolean
  ring: OutputRing
  cmd: RunningCommand
  endedAt: number
}

export function createJobManager(opts: JobManagerOptions = {}): JobManager {
  return new Jobs(opts)
}

class Jobs implements JobManager {
  readonly #opts: JobManagerOptions
  readonly #jobs = new Map<string, Job>()
  #outputTimer: NodeJS.Timeout | undefined

  constructor(opts: JobManagerOptions) {
    this.#opts = opts
  }

  start(command: string, opts: JobStartOptions): JobInfo {
    const maxJobs = this.#opts.maxJobs ?? 8
    const running = [...this.#jobs.values()].filter((j) => j.state === 'running').length
    if (running >= maxJobs)
      throw new Error(`${running} jobs are running, the most allowed; stop one first (job_list shows them)`)
    const dir = mkdtempSync(join(this.#opts.dir ?? tmpdir(), 'hearth-job-'))
    const ring = new OutputRing(dir, this.#opts.maxOutputBytes ?? 8 * 1024 * 1024)
    const onData = (_stream: OutputStream, chunk: Buffer) => {
      ring.write(chunk)
      this.#outputGrew()
    }
    const cmd = startCommand({
      command,
      cwd: opts.cwd,
      policy: opts.sandbox,
      writableRoots: [opts.cwd, ...opts.allowedRoots],
      home: this.#opts.home,
      env: this.#opts.env,
      graceMs: this.#opts.graceMs,
      shell: opts.shell,
      onOutput: onData,
    })
    const job: Job = {
      id: this.#newId(),
      command,
      runId: opts.runId,
      startedAt: new Date().toISOString(),
      state: 'running',
      exitCode: null,
      stopRequested: false,
      ring,
      cmd,
      endedAt: 0,
    }
    this.#jobs.set(job.id, job)
    void cmd.done.then((end) => {
      if (end.error) ring.write(Buffer.from(`[the command could not be started: ${end.error.message}]\n`))
      job.state = job.stopRequested ? 'stopped' : 'exited'
      job.exitCode = end.exitCode
      job.endedAt = Date.now()
      this.#forgetOldFinished()
      this.#changed()
    })
    this.#changed()
    return info(job)
  }

  read(id: string, offset: number, maxBytes: number): JobOutput | undefined {
    const job = this.#jobs.get(id)
    if (!job) return undefined
    const want = Math.max(1, Math.min(Math.trunc(maxBytes), MAX_READ_BYTES))
    // A few bytes more than asked, to finish a character the limit would cut.
    const r = job.ring.read(Math.max(0, Math.trunc(offset)), want + 3)
    const lead = leadingContinuation(r.bytes) // a read that starts inside a character skips its rest
    const body = r.bytes.subarray(lead)
    const end = textEnd(
      body,
      want,
      job.state !== 'running' && r.start + r.bytes.length === job.ring.totalBytes,
    )
    return {
      text: body.subarray(0, end).toString('utf8'),
      next_offset: r.start + lead + end,
      skipped_bytes: r.skipped,
      state: job.state,
      exit_code: job.exitCode,
    }
  }

  async stop(id: string): Promise<JobInfo | undefined> {
    const job = this.#jobs.get(id)
    if (!job) return undefined
    if (job.state === 'running') {
      job.stopRequested = true
      await job.cmd.stop()
      // done's own handler (registered first) has set the state by now.
    }
    return info(job)
  }

  list(): JobInfo[] {
    return [...this.#jobs.values()].map(info)
  }

  async stopForRun(runId: string): Promise<void> {
    const mine = [...this.#jobs.values()].filter((j) => j.runId === runId && j.state === 'running')
    await Promise.all(mine.map((j) => this.stop(j.id)))
  }

  /** Stops every job and deletes all their output: the session is going, or the kernel. */
  async stopAll(): Promise<void> {
    await Promise.all(
      [...this.#jobs.values()].filter((j) => j.state === 'running').map((j) => this.stop(j.id)),
    )
    clearTimeout(this.#outputTimer)
    this.#outputTimer = undefined
    for (const job of this.#jobs.values()) job.ring.remove()
  }

  #newId(): string {
    for (;;) {
      const id = `j${randomBytes(4).readUInt32BE(0).toString(36).padStart(7, '0').slice(-6)}`
      if (!this.#jobs.has(id)) return id
    }
  }

  /** Output alone is reported at most once per interval. */
  #outputGrew(): void {
    if (this.#outputTimer || !this.#opts.onChange) return
    this.#outputTimer = setTimeout(() => {
      this.#outputTimer = undefined
      this.#changed()
    }, this.#opts.changeIntervalMs ?? 1000)
    this.#outputTimer.unref()
  }

  #changed(): void {
    this.#opts.onChange?.(this.list())
  }

  #forgetOldFinished(): void {
    const finished = [...this.#jobs.values()]
      .filter((j) => j.state !== 'running')
      .sort((a, b) => a.endedAt - b.endedAt)
    const excess = finished.length - (this.#opts.maxFinished ?? 32)
    for (const job of finished.slice(0, Math.max(0, excess))) {
      job.ring.remove()
      this.#jobs.delete(job.id)
    }
  }
}

function info(job: Job): JobInfo {
  return {
    id: job.id,
    command:
      job.command.length > COMMAND_SHOWN_CHARS
        ? `${job.command.slice(0, COMMAND_SHOWN_CHARS)}…`
        : job.command,
    started_at: job.startedAt,
    output_bytes: job.ring.totalBytes,
    state: job.state,
    exit_code: job.exitCode,
    run_id: job.runId,
  }
}

/**
 * Where a read of `body` ends: at most `want` bytes, on a character border. A character
 * longer than `want` is given whole; one not yet fully written waits for the next read,
 * unless the output is complete (`final`), where a broken character is shown as it is.
 */
function textEnd(body: Buffer, want: number, final: boolean): number {
  if (final && body.length <= want) return body.length
  const end = completeLength(body.subarray(0, Math.min(body.length, want)))
  if (end > 0 || body.length === 0) return end
  const first = charLength(body[0])
  return first <= body.length ? first : final ? body.length : 0
}
