// MCP elicitation in the kernel: the client declares it (form and URL modes) and answers a
// server's `elicitation/create` by asking the daemon, which makes it the session's blocking
// reason until the person answers (src/runs/elicitations.ts). While the question waits, the
// timeout of the server's running calls is held: a person reading a form is not a server
// that stopped answering. Part of the MCP client's bundle (imported by connection.ts).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  CancelledNotificationSchema,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js'
import { CANCELLED, type ElicitAnswer, type ElicitParams } from '../../mcp/elicitation.ts'

/** What the client declares: both modes. */
export const ELICITATION_CAPABILITY = { form: {}, url: {} }

/** A call's timeout: started again by progress, held while its server waits for the person. */
export class CallDeadline {
  readonly #controller = new AbortController()
  readonly #ms: number
  #timer: NodeJS.Timeout | undefined
  #held = 0

  constructor(ms: number) {
    this.#ms = ms
    this.restart()
  }

  get signal(): AbortSignal {
    return this.#controller.signal
  }

  restart(): void {
    clearTimeout(this.#timer)
    if (this.#held === 0) this.#timer = setTimeout(() => this.#controller.abort(), this.#ms)
  }

  hold(): void {
    this.#held++
    clearTimeout(this.#timer)
  }

  /** The wait ended: the call has its whole timeout again. */
  release(): void {
    this.#held = Math.max(0, this.#held - 1)
    this.restart()
  }

  clear(): void {
    clearTimeout(this.#timer)
  }
}

/** A running call of a connection: hearth's call id and its timeout. */
export interface RunningCall {
  callId: string | null
  deadline: CallDeadline
}

/** Who answers a connection's questions (the host sets it; none answers `cancel`). */
export type Asker = (
  callId: string | null,
  params: ElicitParams,
  signal: AbortSignal,
) => Promise<ElicitAnswer>

export interface ElicitingConnection {
  /** The connection's calls running now, oldest first. */
  running(): RunningCall[]
  asker(): Asker | undefined
  completed(elicitationId: string): void
}

/**
 * Registers the handlers of `elicitation/create`, `notifications/elicitation/complete` and
 * `notifications/cancelled`.
 */
export function answerElicitations(client: Client, conn: ElicitingConnection): void {
  const withdrawals = new Map<RequestId, AbortController>()
  client.setRequestHandler(ElicitRequestSchema, async (req, extra) => {
    const withdrawn = new AbortController()
    withdrawals.set(extra.requestId, withdrawn)
    try {
      const signal = AbortSignal.any([extra.signal, withdrawn.signal])
      return { ...(await ask(conn, paramsOf(req.params as Record<string, unknown>), signal)) }
    } finally {
      withdrawals.delete(extra.requestId)
    }
  })
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) =>
    conn.completed(n.params.elicitationId),
  )
  // The SDK drops the cancellation of request id 0 (it tests the id for truth), and a
  // server's first request has id 0: its first question could never be withdrawn. The
  // questions' cancellations are handled here, the others passed on to the SDK's own
  // handler, which this registration replaces (test/unit/mcp-cancel.test.ts holds both).
  client.setNotificationHandler(CancelledNotificationSchema, (n) => {
    const question = n.params.requestId === undefined ? undefined : withdrawals.get(n.params.requestId)
    if (question) question.abort(n.params.reason)
    else return sdkCancel(client, n)
  })
}

type CancelledNotification = { params: { requestId?: RequestId; reason?: string } }

/** The SDK's handler of `notifications/cancelled` (Protocol#_oncancel) for other requests. */
export function sdkCancel(client: Client, n: CancelledNotification): Promise<void> | undefined {
  return (client as unknown as { _oncancel?(n: CancelledNotification): Promise<void> })._oncancel?.(n)
}

/**
 * The question goes with the call that runs now (a server asks on behalf of a request it is
 * serving; the newest call when several run). Every running call of the server waits.
 */
async function ask(
  conn: ElicitingConnection,
  params: ElicitParams,
  signal: AbortSignal,
): Promise<ElicitAnswer> {
  const asker = conn.asker()
  if (!asker) return CANCELLED
  const calls = conn.running()
  for (const c of calls) c.deadline.hold()
  try {
    return await asker(calls.at(-1)?.callId ?? null, params, signal)
  } finally {
    for (const c of calls) c.deadline.release()
  }
}

/** The request's own fields only (no `_meta`, no task). */
function paramsOf(p: Record<string, unknown>): ElicitParams {
  const message = String(p.message ?? '')
  if (p.mode === 'url')
    return { mode: 'url', message, url: String(p.url), elicitationId: String(p.elicitationId) }
  return {
    mode: 'form',
    message,
    requestedSchema: p.requestedSchema as Extract<ElicitParams, { mode: 'form' }>['requestedSchema'],
  }
}
