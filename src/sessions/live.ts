// What a run in progress has produced so far, held in memory by the run engine and shown by
// session reads (active_output, activity) until the run commits it to the history. The
// log holds every delta too, so nothing here is the only copy.
import type { CompositionView } from '../mcp/composition.ts'

export interface LiveContent {
  content_id: string
  run_id: string
  kind: 'text' | 'reasoning'
  /** Output item index in the provider's answer. */
  index: number
  text: string
  utf8_bytes: number
}

/** A background job as a session read shows it. */
export interface LiveJob {
  id: string
  command: string
  started_at: string
  output_bytes: number
  run_id: string
}

export interface SessionSandbox {
  isolated: boolean
  kind: 'bubblewrap' | null
  network: boolean
  reason: string | null
  /** The user's credentials hidden from commands and file tools. */
  hidden_paths: string[]
  /** Whether tools and commands may write the repositories' `.git`. */
  git_writable: boolean
}

/** Characters of a running call's output kept for current_progress: the end of it. */
const TOOL_TAIL_CHARS = 4096

/** A tool call running now, as current_progress shows it. */
export interface LiveTool {
  run_id: string
  call_id: string
  name: string
  summary: string
  effect: 'read' | 'write' | 'exec'
  started_at: string
  /** The end of its output so far (the log has all of it). */
  tail: string
  output_utf8_bytes: number
}

/** Output of a running call: its tail moves on, its size grows. */
export function noteToolOutput(run: LiveRun, callId: string, text: string): void {
  const tool = run.tools.find((t) => t.call_id === callId)
  if (!tool) return
  const joined = tool.tail + text
  tool.tail = joined.length > TOOL_TAIL_CHARS ? joined.slice(-TOOL_TAIL_CHARS) : joined
  tool.output_utf8_bytes += Buffer.byteLength(text)
}

export interface LiveRun {
  run_id: string
  started_at: string
  contents: LiveContent[]
  /** Its tool calls that run now, in the order they started. */
  tools: LiveTool[]
  observed_ms: number
  kernel: { instance_id: string | null; state: string; build: string | null }
}

/** A session's kernel as reads show it when no run is in progress (and its upgrade facts always). */
export interface KernelFacts {
  instance_id: string | null
  state: string
  build: string | null
  /** An upgrade's stage now, else null. */
  stage: string | null
  stale: boolean
  staleness_reasons: string[]
}

export class LiveRuns {
  readonly #runs = new Map<string, LiveRun>()
  /** Makes a snapshot token for a content at its current length (set by the run engine). */
  snapshotOf: (c: LiveContent) => string = () => ''
  /** Kernel facts of a session with no run in progress (set by the run engine). */
  kernelOf: (sessionId: string) => KernelFacts = () => ({
    instance_id: null,
    state: 'none',
    build: null,
    stage: null,
    stale: false,
    staleness_reasons: [],
  })

  /** A session's background jobs that still run (set by the run engine). */
  jobsOf: (sessionId: string) => LiveJob[] = () => []
  /** Whether a session's commands run in the sandbox (set by the run engine). */
  sandboxOf: (sessionId: string) => SessionSandbox = () => ({
    isolated: false,
    kind: null,
    network: false,
    reason: 'No kernel process has started yet',
    hidden_paths: [],
    git_writable: false,
  })

  /** The session's loaded composition (set by the run engine). */
  compositionOf: (sessionId: string) => CompositionView = () => ({ quarantine: [], availability: {} })

  get(sessionId: string): LiveRun | undefined {
    return this.#runs.get(sessionId)
  }

  set(sessionId: string, run: LiveRun): void {
    this.#runs.set(sessionId, run)
  }

  delete(sessionId: string): void {
    this.#runs.delete(sessionId)
  }

  content(sessionId: string, contentId: string): LiveContent | undefined {
    return this.#runs.get(sessionId)?.contents.find((c) => c.content_id === contentId)
  }
}
