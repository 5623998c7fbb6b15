// A run in flight, as the engine holds it: what its current step produced so far, the
// state of its loop (steps, the kernel's check, calls and approvals it waits for), and what
// its tools may do (the scope, resolved when it starts).
import { realpathSync } from 'node:fs'
import type { Kernel } from '../kernel/pool.ts'
import type { CheckedCall, OfferedTool, StepTransport } from '../kernel/protocol.ts'
import type { ElicitAnswer } from '../mcp/elicitation.ts'
import type { AssistantPart, EncryptedReasoningPart, NeutralUsage } from '../providers/types.ts'
import type { ApprovalPolicy } from '../schemas/common.ts'
import type { CachePolicy } from '../schemas/models.ts'
import type { Decision } from '../sessions/approvals.ts'
import type { SessionsCore } from '../sessions/core.ts'
import type { LiveRun } from '../sessions/live.ts'
import { EMPTY_SELECTION, type SessionRow } from '../sessions/types.ts'
import { selectionOf } from '../sessions/views.ts'
import type { ResolvedProfile } from '../settings/profiles.ts'
import { hiddenPaths } from '../tools/hidden-paths.ts'
import type { SandboxPolicy } from '../tools/types.ts'
import type { StartedRun } from './start.ts'
import type { CallResult } from './step/entries.ts'

export interface ToolSettings {
  approval_policy: ApprovalPolicy
  max_steps: number
  allowed_roots: string[]
  network: boolean
  hidden_paths: string[]
  visible_paths: string[]
}

export const DEFAULT_TOOL_SETTINGS: ToolSettings = {
  approval_policy: 'ask',
  max_steps: 100,
  allowed_roots: [],
  network: false,
  hidden_paths: [],
  visible_paths: [],
}

/** What the tools of one run may do and where (resolved when it starts). */
export interface RunToolScope {
  policy: ApprovalPolicy
  maxSteps: number
  workspace: string
  allowedRoots: string[]
  sandbox: SandboxPolicy
  /** Skills the session's selection turns off. */
  skillsOff: string[]
  /** The session's `selection.mcp` entries, which decide the servers its kernel loads. */
  mcp: Record<string, boolean>
}

/** The session's policy (its own, else the settings'), workspace and sandbox for a run. */
export function scopeOf(core: SessionsCore, sessionId: string, settings: ToolSettings): RunToolScope {
  const row = core.row(sessionId)
  const policy = (row?.approval_policy as ApprovalPolicy | null) ?? settings.approval_policy
  const selection = row ? selectionOf(row) : EMPTY_SELECTION
  let workspace = row?.workspace ?? '/'
  try {
    workspace = realpathSync(workspace)
  } catch {
    // A workspace that is gone: file tools refuse every path in it.
  }
  return {
    policy,
    maxSteps: settings.max_steps,
    workspace,
    allowedRoots: settings.allowed_roots,
    sandbox: sandboxPolicyOf(row, settings),
    skillsOff: Object.keys(selection.skills).filter((name) => selection.skills[name] === false),
    mcp: selection.mcp,
  }
}

/**
 * Where the session's commands run and what they may reach: the settings' network and
 * hidden paths, and whether the session allows git writes (its `allow_git_writes`).
 */
export function sandboxPolicyOf(row: SessionRow | undefined, settings: ToolSettings): SandboxPolicy {
  return {
    network: settings.network,
    isolate: true,
    hidden: hiddenPaths(settings),
    gitWritable: row?.allow_git_writes === 1,
  }
}

export class ActiveRun {
  readonly started: StartedRun
  readonly live: LiveRun
  readonly startedMs: number
  kernel: Kernel | undefined
  tool_calls: AssistantPart[] = []
  /** Encrypted reasoning items, by output index, kept with the answer for replay. */
  encrypted: { index: number; part: EncryptedReasoningPart }[] = []
  /** The model the run's steps go to (the session's resolved model). */
  model = ''
  usage: NeutralUsage | null = null
  /** Log events waiting for the next batch commit. */
  queue: { kind: string; payload: Record<string, any> }[] = []
  /** The provider's usage of a step, for the request log, committed with the next batch. */
  usageToRecord: { step: number; usage: NeutralUsage } | undefined
  flushScheduled = false
  /** The first step is on its way to the kernel (an interrupt before that needs no kernel's answer). */
  sent = false
  /**
   * The step is ready but waits for the sync of the input that started the run: no request
   * leaves for the model before its input is durable (an interrupt meanwhile needs no kernel).
   */
  stepHeld = false
  finished = false
  /** Aborts getting the run's credential (a token refresh) when the run is interrupted. */
  readonly abort = new AbortController()
  profile: ResolvedProfile | undefined
  /** The signed-in account whose credential the run uses, if any. */
  accountId: string | null = null
  /** Model requests made so far (the step limit counts them). */
  step = 0
  /** The id the last step was sent under (stepIdOf), which the kernel's answers name. */
  stepId: string | null = null
  /** The model step in flight has ended (its `done` or `error` came). */
  stepEnded = false
  /**
   * How the model cut its last step short, if it did: `length` (its output limit) or
   * `content_filter` (a refusal, a filter). Recorded on the run's answer (`stop_reason`).
   */
  cut: 'length' | 'content_filter' | null = null
  /** The kernel has not yet said `step_ended` for the last step sent. */
  stepOpen = false
  /**
   * The next step waits for that `step_ended`, so that everything the kernel says about one
   * step comes before the next step is sent.
   */
  stepWaiting = false
  /** An automatic compaction runs before the next step. */
  compacting = false
  /** Stops that compaction's model request (an interrupt). */
  compactAbort: AbortController | undefined
  /** The model window as the last step saw it (null: unknown). */
  window: number | null = null
  /** Asked to stop: the loop ends at its next boundary. */
  interrupted = false
  scope!: RunToolScope
  /** The tools offered to the model (filtered by the policy). */
  offered: OfferedTool[] = []
  /** Where each step of the run goes: extension, transport profile (with the credential), limits. */
  transport!: StepTransport
  effort: string | null = null
  /**
   * The prompt-cache policy of the run's extension and host, for the usage its end records;
   * looked up once the first step has left (reading the settings then costs the request
   * nothing), undefined until then.
   */
  cache: CachePolicy | null | undefined
  /**
   * The environment block every step of the run ends its system text with, computed once at
   * the run's start (src/instructions/environment.ts), so the steps' requests share a prefix.
   */
  environment: string | null = null
  /** Waiting for the kernel's check of the step's calls. */
  checkWaiter: ((calls: CheckedCall[]) => void) | undefined
  /** The check, when it came before anybody waited for it. */
  checked: CheckedCall[] | undefined
  /** Results of reads the kernel ran as the step ended, by call id, until the round uses them. */
  readonly earlyResults = new Map<string, CallResult>()
  /** Calls running in the kernel, by call id. */
  readonly resultWaiters = new Map<string, (r: CallResult) => void>()
  /** Calls waiting for a person, by approval request id. */
  readonly approvalWaiters = new Map<string, (d: Decision | 'expired') => void>()
  /** Calls whose MCP server waits for the person's answer, by elicitation request id. */
  readonly elicitationWaiters = new Map<string, (a: ElicitAnswer | 'expired') => void>()
  /** The request id of each question waiting, by the kernel's id of it (`elicit_id`). */
  readonly elicitationsAsked = new Map<number, string>()
  readonly ended: Promise<void>
  resolveEnded!: () => void

  constructor(started: StartedRun, live: LiveRun) {
    this.started = started
    this.live = live
    this.startedMs = Date.now()
    this.ended = new Promise((resolve) => {
      this.resolveEnded = resolve
    })
  }
}
