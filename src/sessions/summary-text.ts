// The short texts a session summary shows: the preview of its latest message and the name
// it gets from its first exchange. Both are derived here, cheaply, without a model call.
import type { SessionsCore } from './core.ts'
import { indexSession } from './search.ts'

/** Characters of a preview; a longer text is cut and shown with `truncated` true. */
export const PREVIEW_CHARS = 200
/** Characters of an automatic name, the ellipsis included. */
export const AUTOMATIC_NAME_CHARS = 60

/** The first `max` code points of `text` (a surrogate pair is never split). */
function firstCodePoints(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false }
  const points = [...text]
  if (points.length <= max) return { text, cut: false }
  return { text: points.slice(0, max).join(''), cut: true }
}

export function previewOf(text: string): { text: string; truncated: boolean } {
  const p = firstCodePoints(text, PREVIEW_CHARS)
  return { text: p.text, truncated: p.cut }
}

/**
 * A name from a message: its first non-blank line with control characters and runs of
 * white space made single spaces, cut at a word boundary with an ellipsis when long.
 */
export function automaticNameOf(text: string): string {
  const lines = text.slice(0, 4096).split(/\r?\n/)
  const clean = (l: string) => l.replace(/[\u0000-\u001f\u007f\s]+/g, ' ').trim()
  const line = lines.map(clean).find((l) => l !== '') ?? ''
  const p = firstCodePoints(line, AUTOMATIC_NAME_CHARS - 1)
  if (!p.cut) return line
  const space = p.text.lastIndexOf(' ')
  const head = space >= AUTOMATIC_NAME_CHARS / 2 ? p.text.slice(0, space) : p.text
  return `${head.trimEnd()}…`
}

/**
 * Names a session from its first exchange: called with the first message a run sends and
 * with the answer it gets; the first text that yields a name wins, later ones change nothing.
 */
export function nameFromExchange(core: SessionsCore, sessionId: string, text: string): void {
  const name = automaticNameOf(text)
  if (name === '') return
  const r = core
    .sql("UPDATE sessions SET automatic_name = ? WHERE id = ? AND automatic_name = ''")
    .run(name, sessionId)
  if (r.changes > 0) indexSession(core, core.row(sessionId)!)
}
