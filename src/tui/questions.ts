// The MCP servers' questions waiting in the open session, oldest first, as its events tell
// them: the session shows the oldest as its blocking reason (as the daemon does, so two
// servers asking at once are answered one after the other).
import type { Question } from '../client/elicitation-view.ts'

export class WaitingQuestions {
  #list: Question[] = []

  /** A snapshot: the question it shows, if any, is the one known to wait. */
  reset(blocking: { kind: string } | null): void {
    this.#list = blocking?.kind === 'elicitation' ? [blocking as Question] : []
  }

  asked(p: Record<string, unknown>): void {
    const { run_id: _run, call_id: _call, ...question } = p
    this.#list.push(question as unknown as Question)
  }

  /** Answered or expired. */
  closed(requestId: string): void {
    this.#list = this.#list.filter((q) => q.request_id !== requestId)
  }

  clear(): void {
    this.#list = []
  }

  get oldest(): Question | null {
    return this.#list[0] ?? null
  }
}
