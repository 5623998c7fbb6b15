// History entries as reads, snapshots and events show them. Long texts are cut to an
// inline preview; the whole text is read in pages from GET .../history/{entry_id}.

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

export function toHistoryEntry(r: EntryRow): HistoryEntry {
  const content = JSON.parse(r.content) as Record<string, unknown>
  delete content.replay // provider state kept for the model (encrypted reasoning), not shown
  if (typeof content.text === 'string' && content.text.length > INLINE_TEXT_CHARS) {
    content.text_bytes = Buffer.byteLength(content.text)
    content.text = content.text.slice(0, INLINE_TEXT_CHARS)
    content.truncated = true
  }
  return {
    id: String(r.position),
    position: r.position,
    group: r.grp,
    kind: r.kind,
    created_at: r.created_at,
    content,
  }
}
