// The tool contract: what a built-in tool is, what it is given to run one call, and what a
// call gives back. Tools run in the kernel process (never on the daemon's thread); the
// daemon decides whether a call may run (docs/tools.md, approvals) and records the call and
// its result in the session's history. A tool never throws for a bad call: a path outside
// the workspace, an ambiguous edit or a missing file is a result with outcome `error` and a
// message the model can act on.
import type { TSchema } from 'typebox'
import type { ShellSession } from './exec/session.ts'

/**
 * What a call may change, which decides its approval and its ordering: reads run freely
 * inside the workspace and concurrently with other reads; writes and exec ask under the
 * `ask` policy and run one at a time, in the order the model gave them.
 */
export type ToolEffect = 'read' | 'write' | 'exec'

/** A chunk of a running command's output, sent to clients as `tool.progress`. */
export interface ToolProgress {
  stream: 'stdout' | 'stderr'
  text: string
}

/** Where commands run and what they may reach (src/tools/exec/sandbox.ts). */
export interface SandboxPolicy {
  /** Whether commands may use the network. */
  network: boolean
  /** Run inside bubblewrap when the machine has it (`available` in SandboxStatus). */
  isolate: boolean
  /**
   * Absolute paths of the user's credentials that commands and file tools may not read
   * (src/tools/hidden-paths.ts); absent: the default list under this process's home.
   */
  hidden?: readonly string[]
  /** Whether tools and commands may write the roots' `.git` (src/tools/git-dirs.ts); absent: no. */
  gitWritable?: boolean
}

/** What the machine offers; shown in GET /server and on the session. */
export interface SandboxStatus {
  available: boolean
  kind: 'bubblewrap' | null
  /** Why it is not available (`bwrap` not on PATH, user namespaces refused…), else null. */
  reason: string | null
}

export interface ToolContext {
  /** The session's workspace: an absolute, symlink-resolved directory. */
  workspace: string
  /** Further absolute directories the user allowed in settings (read and write). */
  allowedRoots: readonly string[]
  /** Aborted on interrupt: a running command is stopped with its process group. */
  signal: AbortSignal
  /** Streams a running command's output as it comes. */
  progress: (chunk: ToolProgress) => void
  sandbox: SandboxPolicy
  /** The session's background jobs (src/tools/exec/jobs.ts). */
  jobs: JobManager
  /** The run the call belongs to: jobs it starts are stopped when this run is interrupted. */
  runId: string
  /**
   * The session's shell (src/tools/exec/session.ts): the login profile's snapshot and the
   * warm sandbox; absent, each command runs its own login shell in its own sandbox.
   */
  shell?: ShellSession
  /** Skills the session's selection turns off (the `skill` tool refuses them). */
  skillsOff?: readonly string[]
}

export type ToolOutcome = 'ok' | 'error' | 'interrupted' | 'timeout'

export interface ToolImage {
  media_type: 'image/png' | 'image/jpeg' | 'image/webp'
  /** base64 */
  data: string
}

export interface ToolResult {
  outcome: ToolOutcome
  /** The text the model gets back (bounded: every tool caps what it returns). */
  output: string
  /** Images the model may see (a `read` of an image file). */
  images?: ToolImage[]
  /** Facts for clients and the history (path, exit code, bytes, truncated…); never secrets. */
  meta?: Record<string, unknown>
}

export interface ToolSpec<A = unknown> {
  name: string
  /** What the model reads to decide when and how to call it. */
  description: string
  /** The JSON Schema of the arguments, sent to the model and checked before a call runs. */
  parameters: TSchema
  effect: ToolEffect
  /** One line for approvals and compact display (`edit src/a.ts`, `shell: npm test`). */
  summarize(args: A): string
  run(args: A, ctx: ToolContext): Promise<ToolResult>
}

export type JobState = 'running' | 'exited' | 'stopped'

/** A background job as `kernel.running_jobs` shows it. */
export interface JobInfo {
  id: string
  command: string
  started_at: string
  /** Bytes of output it has written so far (stdout and stderr). */
  output_bytes: number
  state: JobState
  exit_code: number | null
  /** The run that started it. */
  run_id: string
}

export interface JobOutput {
  text: string
  /** Where the next read starts. */
  next_offset: number
  /** Bytes that were dropped before `offset` could be read (output kept is bounded). */
  skipped_bytes: number
  state: JobState
  exit_code: number | null
}

export interface JobStartOptions {
  cwd: string
  sandbox: SandboxPolicy
  /** Extra writable roots besides cwd. */
  allowedRoots: readonly string[]
  runId: string
  /** The session's shell, as in ToolContext. */
  shell?: ShellSession
}

export interface JobManager {
  start(command: string, opts: JobStartOptions): JobInfo
  read(id: string, offset: number, maxBytes: number): JobOutput | undefined
  stop(id: string): Promise<JobInfo | undefined>
  list(): JobInfo[]
  /** Stops the jobs a run started (an interrupt of that run). */
  stopForRun(runId: string): Promise<void>
  /** Stops every job (session delete, kernel shutdown). */
  stopAll(): Promise<void>
}
