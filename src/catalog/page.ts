// Paging through the catalog: the sections in their fixed order (or the one asked for), a
// page holding at most `limit` candidates across them. A page's position is a section and
// an offset into it; the continuation carries both, so it names the section it resumes in.
// `catalog_revision` names the sections the page walked through and hashes all of their
// candidates (not only those shown), which is what a selection made from the page saw.
import { CATALOG_KINDS, type Catalog, type CatalogKind } from '../schemas/catalog.ts'
import { type CatalogSources, hashOf, type SessionSide, sectionOf, sectionRevision } from './candidates.ts'

export interface PagePosition {
  kind: CatalogKind
  offset: number
}

export type CatalogPage = Omit<Catalog, 'next' | 'session_id'> & { next: PagePosition | null }

function revisionOf(sections: readonly { kind: CatalogKind; revision: string }[]): string {
  return `${sections.map((s) => s.kind).join('+')}:${hashOf(sections.map((s) => s.revision))}`
}

export function catalogPage(
  src: CatalogSources,
  side: SessionSide,
  kind: CatalogKind | undefined,
  limit: number,
  from: PagePosition | null,
): CatalogPage {
  const order = kind ? [kind] : [...CATALOG_KINDS]
  let at = from ? order.indexOf(from.kind) : 0
  let offset = from?.offset ?? 0
  const sections: Catalog['sections'] = []
  const items: Catalog['items'] = []
  let next: PagePosition | null = null
  for (; at < order.length; at++, offset = 0) {
    const all = sectionOf(src, side, order[at])
    if (items.length === limit) {
      // The page is full at a section's boundary: resume at the next section with candidates.
      if (all.length > 0) {
        next = { kind: order[at], offset: 0 }
        break
      }
      continue
    }
    sections.push({ kind: order[at], revision: sectionRevision(all), total: all.length })
    const take = all.slice(offset, offset + (limit - items.length))
    items.push(...take)
    if (offset + take.length < all.length) {
      next = { kind: order[at], offset: offset + take.length }
      break
    }
  }
  return {
    kind: kind ?? null,
    catalog_revision: revisionOf(sections),
    sections,
    items,
    next,
    next_kind: next?.kind ?? null,
  }
}

/**
 * Whether `revision` (a page's catalog_revision) still holds: its sections hash to the same
 * now. A value that names no known sections never holds.
 */
export function catalogRevisionHolds(src: CatalogSources, side: SessionSide, revision: string): boolean {
  const colon = revision.indexOf(':')
  if (colon <= 0) return false
  const kinds = revision.slice(0, colon).split('+')
  if (!kinds.every((k): k is CatalogKind => (CATALOG_KINDS as readonly string[]).includes(k))) return false
  const now = kinds.map((kind) => ({ kind, revision: sectionRevision(sectionOf(src, side, kind)) }))
  return revisionOf(now) === revision
}
