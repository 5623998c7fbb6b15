// The frames of one run as JSON lines: `hearth send --json` writes the session stream's
// frames that belong to the run serving its message (as `hearth session watch --json` writes
// every frame), from the message's acceptance to the run's end, which is the last line.
import type { StreamFrame } from '../client/session-follow.ts'

/** `{"event":…,"id":…,"data":<the data text as sent>}`: one JSON line per frame. */
export function rawFrame(f: StreamFrame): string {
  const id = f.id === undefined ? '' : `,"id":${JSON.stringify(f.id)}`
  let data = f.data
  try {
    JSON.parse(data)
  } catch {
    data = JSON.stringify(data) // not JSON (never sent by hearth): keep the line valid
  }
  return `{"event":${JSON.stringify(f.event)}${id},"data":${data}}`
}

/**
 * Tells the frames of the run serving one input from the rest of the session's stream: the
 * input's acceptance, the run's start (which names the input), its history entries (its
 * group), and every event naming the run or one of its outputs, calls or approval requests.
 */
export class RunFrames {
  readonly #inputId: string
  #runId: string | undefined
  #group: number | undefined
  /** The run's outputs, calls and approval requests seen so far. */
  readonly #ids = new Set<string>()

  constructor(inputId: string) {
    this.#inputId = inputId
  }

  /** Whether the frame `event` with `payload` belongs to the run (learning its ids). */
  takes(event: string, payload: Record<string, any>): boolean {
    if (event === 'input.accepted') return payload.input?.id === this.#inputId
    if (event === 'run.started' && (payload.input_ids as string[] | undefined)?.includes(this.#inputId)) {
      this.#runId = payload.run_id
      this.#group = payload.group
      return true
    }
    if (this.#runId === undefined) return false
    if (event === 'entry.added') return payload.entry?.group === this.#group
    const named = [payload.content_id, payload.call_id, payload.request_id].filter(
      (id): id is string => typeof id === 'string',
    )
    if (payload.run_id !== this.#runId && !named.some((id) => this.#ids.has(id))) return false
    for (const id of named) this.#ids.add(id)
    return true
  }
}
