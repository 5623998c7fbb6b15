// The kernel's side of the questions MCP servers ask: each goes to the daemon as
// `mcp_elicit` under an id of this process, and its `mcp_elicit_answer` comes back to the
// server's waiting request. A request the server withdrew (its signal) is answered `cancel`
// at once, and the daemon told, so that the person is no longer asked. No SDK here: it lives in the kernel's own bundle (host.ts).
import { CANCELLED, type ElicitAnswer, type ElicitParams } from '../../mcp/elicitation.ts'
import type { FromKernel } from '../protocol.ts'

export class ElicitBroker {
  readonly #send: (msg: FromKernel) => void
  readonly #waiting = new Map<number, (a: ElicitAnswer) => void>()
  #next = 0

  constructor(send: (msg: FromKernel) => void) {
    this.#send = send
  }

  ask(
    where: { session_id: string; server: string; call_id: string | null },
    params: ElicitParams,
    signal: AbortSignal,
  ): Promise<ElicitAnswer> {
    if (signal.aborted) return Promise.resolve(CANCELLED)
    const id = ++this.#next
    return new Promise((resolve) => {
      const withdrawn = () => {
        done(CANCELLED)
        this.#send({
          type: 'mcp_elicit_withdrawn',
          session_id: where.session_id,
          server: where.server,
          elicit_id: id,
        })
      }
      const done = (a: ElicitAnswer) => {
        this.#waiting.delete(id)
        signal.removeEventListener('abort', withdrawn)
        resolve(a)
      }
      signal.addEventListener('abort', withdrawn, { once: true })
      this.#waiting.set(id, done)
      this.#send({ type: 'mcp_elicit', ...where, elicit_id: id, params })
    })
  }

  /** The daemon's answer; one for a request no longer waiting is dropped. */
  answer(id: number, result: ElicitAnswer): void {
    this.#waiting.get(id)?.(result)
  }

  completed(where: { session_id: string; server: string }, elicitationId: string): void {
    this.#send({ type: 'mcp_elicit_done', ...where, elicitation_id: elicitationId })
  }
}
