// History entries as reads, snapshots and events show them. Long texts are cut to an
// inline preview; the whole text is read in pages from GET .../history/{entry_id}.
import type { SessionsCore, Tx } from './core.ts'

/** Characters of an entry's text shown inline; beyond it `truncated` is true. */
export const INLINE_TEXT_CHARS = 16_384

export interface EntryRow {
  position: number
  grp: number
  kind: string
  created_at: string
  content: string
}

export interface HistoryEntry {
  id: string
  position: number
  group: number
  kind: string
  created_at: string
  content: Record<string, unknown>
}

/**
 * Bytes of JSON an entry's inline content may take. Past it (many long tool calls, say) only
 * the cut text and the short fields stay, so that any page holds at least a few entries.
 */
export const ENTRY_INLINE_BYTES = 128 * 1024
/** Characters a short field kept in an over-large entry may have. */
const SHORT_FIELD_CHARS = 256

/** The first `max` UTF-16 units of `text`, never ending inside a surrogate pair. */
export function cutChars(text: string, max: number): string {
  if (text.length <= max) return text
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]) ? max - 1 : max
  return text.slice(0, end)
}

/** Cuts every string longer than INLINE_TEXT_CHARS; returns whether any was cut. */
function cutStrings(value: unknown, cut: { any: boolean }): unknown {
  if (typeof value === 'string') {
    if (value.length <= INLINE_TEXT_CHARS) return value
    cut.any = true
    return cutChars(value, INLINE_TEXT_CHARS)
  }
  if (Array.isArray(value)) return value.map((v) => cutStrings(v, cut))
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutStrings(v, cut)]))
  return value
}

function isShort(v: unknown): boolean {
  return typeof v === 'string' ? v.length <= SHORT_FIELD_CHARS : v === null || typeof v !== 'object'
}

/** The inline form of a long entry's content: long strings cut, the whole bounded. */
function boundContent(content: Record<string, unknown>): Record<string, unknown> {
  const text = content.text
  const cut = { any: false }
  let out = cutStrings(content, cut) as Record<string, unknown>
  if (typeof text === 'string' && text.length > INLINE_TEXT_CHARS) out.text_bytes = Buffer.byteLength(text)
  if (cut.any) out.truncated = true
  if (Buffer.byteLength(JSON.stringify(out)) > ENTRY_INLINE_BYTES) {
    const kept = Object.entries(out).filter(([k, v]) => k === 'text' || isShort(v))
    const omitted = Object.keys(out).filter((k) => !kept.some(([name]) => name === k))
    out = { ...Object.fromEntries(kept), truncated: true, omitted }
  }
  return out
}

export function toHistoryEntry(r: EntryRow): HistoryEntry {
  const parsed = JSON.parse(r.content) as Record<string, unknown>
  delete parsed.replay // provider state kept for the model (encrypted reasoning), not shown
  // A stored content no longer than INLINE_TEXT_CHARS holds no string longer than that.
  const content = r.content.length <= INLINE_TEXT_CHARS ? parsed : boundContent(parsed)
  return {
    id: String(r.position),
    position: r.position,
    group: r.grp,
    kind: r.kind,
    created_at: r.created_at,
    content,
  }
}

/** Appends entries after the session's last one, with their `entry.added` events. */
export function addEntries(
  core: SessionsCore,
  tx: Tx,
  sessionId: string,
  items: { grp: number; kind: string; content: Record<string, unknown> }[],
): HistoryEntry[] {
  const s = core.row(sessionId)
  if (!s || items.length === 0) return []
  let position = s.transcript_count
  const added: HistoryEntry[] = []
  const insert = core.sql(
    'INSERT INTO entries (session_id, position, grp, kind, created_at, content) VALUES (?, ?, ?, ?, ?, ?)',
  )
  for (const item of items) {
    position += 1
    const row = {
      position,
      grp: item.grp,
      kind: item.kind,
      created_at: tx.at,
      content: JSON.stringify(item.content),
    }
    insert.run(sessionId, position, item.grp, item.kind, tx.at, row.content)
    added.push(toHistoryEntry(row))
  }
  core
    .sql('UPDATE sessions SET transcript_count = ?, activity_ms = ? WHERE id = ?')
    .run(position, tx.now, sessionId)
  for (const entry of added) tx.append(sessionId, 'entry.added', { entry })
  tx.changed({ session_id: sessionId, reason: 'changed', before: s, after: core.row(sessionId) })
  return added
}
