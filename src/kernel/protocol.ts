// Typed IPC between the daemon and a kernel process (structured clone over the fork channel).
// The daemon sends a `step` (one model call) under a step id and the step's tool calls under
// their run's id; the kernel answers a step's events, its checked calls and `step_ended`
// with the step id, and a call's output and result with the run id.
import type { ElicitAnswer, ElicitParams } from '../mcp/elicitation.ts'
import type { McpAccessToken, McpRoot, McpServerConfig, McpServerStatus } from '../mcp/types.ts'
import type { NeutralEvent, NeutralRequest, NeutralTool, TransportProfile } from '../providers/types.ts'
import type {
  JobInfo,
  SandboxPolicy,
  SandboxStatus,
  ToolEffect,
  ToolImage,
  ToolOutcome,
  ToolProgress,
} from '../tools/types.ts'

/**
 * The version of this message set. A kernel says which it speaks in `ready` and `pong`; the
 * daemon refuses a kernel that speaks another (an upgrade's validation, src/kernel/upgrade.ts).
 * Raise it whenever a message changes shape.
 */
export const KERNEL_PROTOCOL = 5

/** A profile's stream limits, when it sets them (else the transport's defaults). */
export interface StepLimits {
  idle_timeout_ms?: number
  max_retries?: number
}

/** Where a step goes: the provider extension, its transport profile and stream limits. */
export interface StepTransport {
  extension: string
  profile: TransportProfile
  limits: StepLimits
}

/** A tool call as the model asked for it. */
export interface CallRequest {
  call_id: string
  name: string
  /** The arguments as the model wrote them: JSON text, checked by the kernel. */
  arguments: string
}

/** What the kernel says about a call before it runs: what it would do, or why it cannot. */
export type CheckedCall =
  | { call_id: string; ok: true; effect: ToolEffect; summary: string }
  | { call_id: string; ok: false; effect: ToolEffect | null; summary: string; error: string }

/** A built-in tool as the model is offered it, with what it may change. */
export interface OfferedTool extends NeutralTool {
  effect: ToolEffect
}

/** Where a session's calls run and what they may reach (with each `tool`, and each `step`). */
export interface ToolContextMessage {
  session_id: string
  workspace: string
  allowed_roots: string[]
  sandbox: SandboxPolicy
  /** Skills the session's selection turns off: the `skill` tool refuses them. */
  skills_off?: string[]
}

/** Daemon → kernel. */
export type ToKernel =
  | ({
      type: 'step'
      /** Names the step in the kernel's answers: `<run id>:step:<n>`, or `compaction:<id>`. */
      step_id: string
      /** The run the step is part of; null for a step outside a run (a compaction's summary). */
      run_id: string | null
      request: NeutralRequest
      /** Lets the kernel start the reads the step asks for before the daemon asks. */
      tool_context?: ToolContextMessage
    } & StepTransport)
  /** Stops the step in flight (`step_id`) and, for a run, the tool it runs now and the jobs it started. */
  | { type: 'abort'; step_id: string | null; run_id: string | null }
  | ({ type: 'tool'; run_id: string; call: CallRequest } & ToolContextMessage)
  /** The session was deleted: its jobs stop (answered by a `jobs` message), and its MCP servers. */
  | { type: 'stop_jobs'; session_id: string }
  /**
   * The MCP servers the session uses now (secrets included: the kernel connects with them);
   * answered by `mcp_state` once each has started or failed.
   */
  /**
   * `retry`: servers that failed or exited are started again although their settings are
   * unchanged. `roots`: what `roots/list` answers (the workspace and allowed roots).
   */
  | {
      type: 'mcp_load'
      session_id: string
      load_id: number
      servers: McpServerConfig[]
      roots: McpRoot[]
      retry?: boolean
    }
  /** The answer to the kernel's `mcp_token` of the same id (null: the server needs a sign-in). */
  | { type: 'mcp_token'; request_id: number; token: McpAccessToken | null }
  /** The session's roots changed (its workspace moved): its servers are told. */
  | { type: 'mcp_roots'; session_id: string; roots: McpRoot[] }
  /** The session left this process: its MCP servers stop, and its shell goes. */
  | { type: 'mcp_close'; session_id: string }
  /** The person's answer to a server's question (`mcp_elicit`), or `cancel` when it expired. */
  | { type: 'mcp_elicit_answer'; elicit_id: number; result: ElicitAnswer }
  | { type: 'shutdown' }
  /** Answered by `pong` with the same id: the process reads and answers its messages. */
  | { type: 'ping'; id: number }

/** Kernel → daemon. Events of one step come in batches, in order. */
export type FromKernel =
  | {
      type: 'ready'
      instance_id: string
      build: string
      /** The KERNEL_PROTOCOL this kernel speaks. */
      protocol: number
      /** Warm-up requests that completed before this message (warm.ts), and how long they took. */
      warm_turns: number
      warm_ms: number
      /** The built-in tools this kernel runs. */
      tools: OfferedTool[]
      /** Whether commands can run inside the sandbox on this machine. */
      sandbox: SandboxStatus
    }
  | { type: 'events'; step_id: string; events: NeutralEvent[] }
  /** The step's provider stream has closed: nothing more comes under its id. */
  | { type: 'step_ended'; step_id: string }
  /**
   * The calls a step asked for, checked against the tools' schemas (sent after the step's
   * last events and before `step_ended`).
   */
  | { type: 'checked'; step_id: string; calls: CheckedCall[] }
  /** Output of a running call, batched per tick of the event loop. */
  | { type: 'tool_progress'; run_id: string; call_id: string; chunks: ToolProgress[] }
  | {
      type: 'tool_result'
      run_id: string
      call_id: string
      outcome: ToolOutcome
      output: string
      images?: ToolImage[]
      meta?: Record<string, unknown>
      /** A read the kernel ran unasked as its step ended (the daemon has not sent `tool` yet). */
      early?: boolean
    }
  /** A session's background jobs, sent whenever one starts, ends or writes. */
  | { type: 'jobs'; session_id: string; jobs: JobInfo[] }
  /**
   * A session's MCP servers: the answer to an `mcp_load` (its `load_id`), or a change on
   * its own (a server exited, its tool list changed: no `load_id`).
   */
  | { type: 'mcp_state'; session_id: string; load_id?: number; servers: McpServerStatus[] }
  /**
   * The access token of a signed-in server, asked before a request when the kernel has none
   * or it expires within 60 s, and again with `rejected` when the server refused it (401).
   */
  | { type: 'mcp_token'; session_id: string; server: string; request_id: number; rejected?: string }
  | { type: 'pong'; id: number; build: string; protocol: number }
  | McpElicitMessage
  /** The process groups of every command running now (shell calls and jobs), when they change. */
  | { type: 'groups'; pgids: number[] }
  /** Messages that left in one write (a step's last events and the check of its calls), in order. */
  | { type: 'batch'; messages: FromKernel[] }

/**
 * A session's MCP server asks the person (`elicitation/create`) during one of its tool calls
 * (`call_id`, null when none of its calls runs): answered by `mcp_elicit_answer` with the same
 * `elicit_id`. `mcp_elicit_withdrawn` says the server withdrew that question before an answer
 * (its `notifications/cancelled`); `mcp_elicit_done` passes on a URL interaction's
 * `notifications/elicitation/complete`.
 */
export type McpElicitMessage =
  | {
      type: 'mcp_elicit'
      session_id: string
      server: string
      elicit_id: number
      call_id: string | null
      params: ElicitParams
    }
  | { type: 'mcp_elicit_withdrawn'; session_id: string; server: string; elicit_id: number }
  | { type: 'mcp_elicit_done'; session_id: string; server: string; elicitation_id: string }
