// GET /sessions/{id}/catalog (op sessions.catalog, bound in ./sessions.ts). Domain code is in
// src/catalog/; this module mints and opens the continuations, which carry the section and
// offset the next page starts at.
import { type CatalogSources, sessionSide } from '../catalog/candidates.ts'
import { catalogPage, type PagePosition } from '../catalog/page.ts'
import type { Continuations } from '../http/continuation.ts'
import { CATALOG_KINDS, type CatalogQuery } from '../schemas/catalog.ts'
import { HearthError } from '../schemas/problems.ts'
import type { SessionsCore } from '../sessions/core.ts'

export interface CatalogApiDeps {
  core: SessionsCore
  sources: CatalogSources
  continuations: Continuations
}

/** One page of a session's catalog. */
export function readCatalog(d: CatalogApiDeps, sessionId: string, query: CatalogQuery) {
  const row = d.core.require(sessionId)
  const binding = { session_id: sessionId, kind: query.kind }
  let from: PagePosition | null = null
  if (query.next) {
    const key = d.continuations.open<{ section: string; offset: number }>('catalog', binding, query.next)
    const kind = CATALOG_KINDS.find((k) => k === key.section)
    if (!kind) throw new HearthError('invalid_continuation', 'The continuation names no catalog section')
    from = { kind, offset: key.offset }
  }
  const page = catalogPage(d.sources, sessionSide(row), query.kind, query.limit ?? 50, from)
  const next = page.next
    ? d.continuations.mint('catalog', binding, { section: page.next.kind, offset: page.next.offset })
    : null
  return { session_id: sessionId, ...page, next }
}
