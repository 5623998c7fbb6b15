// Handlers of group `history`: pages with signed continuations, entry text in pieces, raw
// images; and the pages of active output under a snapshot (op sessions.active_output, bound
// in ./sessions.ts), which are cut into pieces the same way.

import { pieceOf } from '../history/pieces.ts'
import { checkpointsPage, entriesPage, entryImage, entryText, type HistoryWindow } from '../history/read.ts'
import type { Continuations } from '../http/continuation.ts'
import { bindGroup } from '../http/route.ts'
import { type EntryContentPage, historyOps } from '../schemas/history.ts'
import { HearthError } from '../schemas/problems.ts'
import type { SessionsCore } from '../sessions/core.ts'
import { CONTINUATION_ROOM, jsonBytes, MAX_JSON_BYTES } from '../util/json-budget.ts'
import { lower } from '../util/uuid.ts'

/** Bytes per piece of an entry's text. */
const ENTRY_PIECE_BYTES = 65_536
/** Bytes per page of active output (the protocol's limit). */
const ACTIVE_PAGE_BYTES = 262_144
/** Bytes of JSON a page's text may take, leaving room for its other fields. */
const PIECE_JSON_BYTES = MAX_JSON_BYTES - CONTINUATION_ROOM

function page(
  c: Continuations,
  sessionId: string,
  text: string,
  id: string,
  offset: number,
  scope: string,
  query: Record<string, unknown>,
  max: number,
  cutoff?: number,
): EntryContentPage {
  let p = pieceOf(text, offset, max, cutoff)
  // A page is at most `max` bytes of UTF-8, and its JSON at most the body limit: text that
  // JSON escapes (control characters take six bytes) is paged in smaller pieces.
  for (let json = jsonBytes(p.text); json > PIECE_JSON_BYTES; json = jsonBytes(p.text)) {
    const shorter = Math.floor(((p.end - p.offset) * PIECE_JSON_BYTES) / json)
    p = pieceOf(text, offset, Math.max(4, shorter), cutoff)
  }
  return {
    id,
    field: 'text',
    offset: p.offset,
    text: p.text,
    total_utf8_bytes: p.total,
    next: p.end < p.total ? c.mint(scope, { ...query, session_id: sessionId }, { o: p.end }) : null,
  }
}

/** The continuation of a session's history entries before position `before`. */
export function olderHistoryToken(c: Continuations, sessionId: string, before: number): string {
  return c.mint('history', { session_id: sessionId, view: 'entries' }, { before })
}

export function historyRoutes(core: SessionsCore, c: Continuations) {
  return bindGroup(historyOps)({
    'history.list': ({ params, query }) => {
      const sessionId = lower(params.session_id)
      const given = [query.before, query.after, query.next].filter((v) => v !== undefined).length
      if (given > 1) throw new HearthError('invalid_history_range')
      const view = query.view ?? 'entries'
      const binding = { session_id: sessionId, view }
      let w: HistoryWindow = { newest: true }
      if (query.before !== undefined) w = { before: query.before }
      else if (query.after !== undefined) w = { after: query.after }
      else if (query.next !== undefined) w = c.open<HistoryWindow>('history', binding, query.next)
      const limit = query.limit ?? 100
      const p =
        view === 'entries'
          ? entriesPage(core, sessionId, w, limit)
          : checkpointsPage(core, sessionId, w, limit)
      return {
        status: 200 as const,
        body: {
          view,
          items: p.items,
          older: p.first !== null && p.first > 1 ? c.mint('history', binding, { before: p.first }) : null,
          newer:
            p.last !== null && p.last < p.high_water ? c.mint('history', binding, { after: p.last }) : null,
          high_water: p.high_water,
        },
      }
    },
    'history.entry': ({ params, query }) => {
      const sessionId = lower(params.session_id)
      const text = entryText(core, sessionId, Number(params.entry_id))
      const binding = { entry_id: params.entry_id }
      const offset = query.next
        ? c.open<{ o: number }>('entry', { ...binding, session_id: sessionId }, query.next).o
        : 0
      return {
        status: 200 as const,
        body: page(c, sessionId, text, params.entry_id, offset, 'entry', binding, ENTRY_PIECE_BYTES),
      }
    },
    'history.image': ({ params }) => {
      const img = entryImage(core, lower(params.session_id), Number(params.entry_id), params.field)
      // Raw bytes: never base64 and never content-coded (the bytes are already compressed).
      const response = new Response(new Uint8Array(img.data), {
        status: 200,
        headers: {
          'content-type': img.media_type,
          'content-length': String(img.data.length),
          'cache-control': 'private, max-age=31536000, immutable',
          'x-content-type-options': 'nosniff',
        },
      })
      return { response }
    },
  })
}

/** A page of the output of the run in progress, under the snapshot its stream gave. */
export function activeOutputPage(
  core: SessionsCore,
  c: Continuations,
  params: { session_id: string; content_id: string },
  query: { snapshot: string; next?: string },
): EntryContentPage {
  const sessionId = lower(params.session_id)
  const contentId = lower(params.content_id)
  core.require(sessionId)
  const snap = c.open<{ r: string; n: number }>('active-output', { content_id: contentId }, query.snapshot)
  const live = core.live.content(sessionId, contentId)
  if (!live || live.run_id !== snap.r)
    throw new HearthError('snapshot_stale', 'The run ended; its output is in the history now')
  const binding = { content_id: contentId, snapshot: query.snapshot }
  const offset = query.next
    ? c.open<{ o: number }>('active-page', { ...binding, session_id: sessionId }, query.next).o
    : 0
  return page(c, sessionId, live.text, contentId, offset, 'active-page', binding, ACTIVE_PAGE_BYTES, snap.n)
}

/** Mints the snapshot token of an active content at its current length. */
export function snapshotMinter(c: Continuations) {
  return (content: { content_id: string; run_id: string; utf8_bytes: number }) =>
    c.mint('active-output', { content_id: content.content_id }, { r: content.run_id, n: content.utf8_bytes })
}
