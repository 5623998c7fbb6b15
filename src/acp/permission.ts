// A tool call waiting for approval, asked of the editor as session/request_permission,
// whichever client's message started its run (the editor follows the session's runs, and
// shows their calls). The three options mean exactly what hearth's approvals mean: allow
// once, allow for the rest of the session (for a command: that exact command line; for
// another tool: that tool), deny. Only a selected option is an answer: a cancelled request
// (the prompt was cancelled), an editor gone or a request the daemon decided meanwhile leave
// the approval to the daemon, pending until another client answers or the run's end
// expires it.
import {
  type AgentContext,
  methods,
  type PermissionOption,
  type RequestPermissionResponse,
} from '@agentclientprotocol/sdk'
import { v7 as uuidv7 } from 'uuid'
import { type HearthClient, ProblemError } from '../client/client.ts'
import {
  argumentsOf,
  diffsOf,
  locationsOf,
  type MappingState,
  type SessionEvent,
  toolKindOf,
} from './updates.ts'

/** What asking takes: the editor, the daemon as it is now, and the log. */
export interface Asking {
  readonly conn: AgentContext
  readonly client: HearthClient
  log: (line: string) => void
}

/** The approval.requested payload. */
export interface ApprovalRequested {
  request_id: string
  tool: string
  summary: string
  effect: string
  run_id: string
  call_id: string
  arguments: string
}

export type ApprovalAnswer = { decision: 'allow' | 'deny'; remember: 'once' | 'session' }

const ANSWERS: Record<string, ApprovalAnswer> = {
  allow_once: { decision: 'allow', remember: 'once' },
  allow_always: { decision: 'allow', remember: 'session' },
  reject_once: { decision: 'deny', remember: 'once' },
}

/** What "always" covers, said in the option: the exact command line, or the tool. */
export function alwaysName(tool: string, args: Record<string, unknown>): string {
  if (typeof args.command === 'string') return `Always allow \`${args.command}\` in this session`
  return `Always allow ${tool} in this session`
}

export function permissionOptions(request: ApprovalRequested): PermissionOption[] {
  const args = argumentsOf(request.arguments)
  return [
    { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
    { optionId: 'allow_always', name: alwaysName(request.tool, args), kind: 'allow_always' },
    { optionId: 'reject_once', name: 'Deny', kind: 'reject_once' },
  ]
}

/** The approval input an editor's answer stands for; undefined when it is no answer. */
export function answerOf(response: RequestPermissionResponse): ApprovalAnswer | undefined {
  if (response.outcome.outcome !== 'selected') return undefined
  return ANSWERS[response.outcome.optionId]
}

/**
 * Asks the editor, then records its answer as an approval input. `signal` withdraws the
 * question ($/cancel_request) when the daemon decided it meanwhile or the run ended.
 */
export async function askPermission(
  ctx: Asking,
  sessionId: string,
  request: ApprovalRequested,
  state: MappingState | undefined,
  signal: AbortSignal,
): Promise<void> {
  const args = argumentsOf(request.arguments)
  const workspace = state?.workspace ?? ''
  const diffs = diffsOf(request.tool, args, workspace)
  let response: RequestPermissionResponse
  try {
    response = await ctx.conn.request(
      methods.client.session.requestPermission,
      {
        sessionId,
        toolCall: {
          toolCallId: request.call_id,
          title: request.summary,
          kind: toolKindOf(request.tool),
          status: 'pending',
          locations: locationsOf(request.tool, args, workspace),
          rawInput: args,
          ...(diffs.length > 0 ? { content: diffs } : {}),
        },
        options: permissionOptions(request),
      },
      { cancellationSignal: signal },
    )
  } catch {
    return // withdrawn, or the editor is gone: the approval stays pending in the daemon
  }
  const answer = answerOf(response)
  if (!answer || signal.aborted) return
  try {
    await ctx.client.call('inputs.put', {
      params: { session_id: sessionId, input_id: uuidv7() },
      body: { kind: 'approval', request_id: request.request_id, ...answer, client_id: `acp-${process.pid}` },
    })
  } catch (err) {
    // Decided or expired meanwhile (another client answered, the run ended): not an error.
    if (err instanceof ProblemError && err.status === 409) return
    ctx.log(`hearth acp: could not record the approval: ${(err as Error).message}`)
  }
}

/**
 * The approvals of one followed session, asked of the editor as they are requested and
 * withdrawn ($/cancel_request) once decided elsewhere or once their run ended.
 */
export class SessionPermissions {
  readonly #asking = new Map<string, { runId: string; withdraw: AbortController }>()
  /** Requests decided while this process followed the session: never asked after. */
  readonly #decided = new Set<string>()
  readonly #ctx: Asking
  readonly #sessionId: string
  readonly #state: MappingState

  constructor(ctx: Asking, sessionId: string, state: MappingState) {
    this.#ctx = ctx
    this.#sessionId = sessionId
    this.#state = state
  }

  onEvent(e: SessionEvent): void {
    const p = e.payload
    if (e.kind === 'approval.requested') this.#ask(p as ApprovalRequested)
    else if (e.kind === 'approval.decided') {
      this.#decided.add(p.request_id)
      this.#asking.get(p.request_id)?.withdraw.abort()
    } else if (e.kind === 'run.ended') {
      this.#decided.clear()
      this.#withdraw((a) => a.runId === p.run_id)
    } else if (e.kind === 'follow.ended') this.#withdraw(() => true)
  }

  /** No more questions: the session is no longer followed. */
  close(): void {
    this.#withdraw(() => true)
  }

  #ask(request: ApprovalRequested): void {
    if (this.#asking.has(request.request_id) || this.#decided.has(request.request_id)) return
    const withdraw = new AbortController()
    this.#asking.set(request.request_id, { runId: request.run_id, withdraw })
    void askPermission(this.#ctx, this.#sessionId, request, this.#state, withdraw.signal).finally(() =>
      this.#asking.delete(request.request_id),
    )
  }

  #withdraw(which: (a: { runId: string }) => boolean): void {
    for (const a of this.#asking.values()) if (which(a)) a.withdraw.abort()
  }
}
