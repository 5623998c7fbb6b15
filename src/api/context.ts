// GET /sessions/{id}/context (op sessions.context, bound in ./sessions.ts): which query
// parameters go with which view, and the request pages' continuations. Domain code is in
// src/context/; compaction is src/runs/compaction/manual.ts.
import { requestsPage } from '../context/requests.ts'
import { type ContextDeps, contextSection, contextSummary } from '../context/summary.ts'
import type { Continuations } from '../http/continuation.ts'
import type { Runs } from '../runs/engine.ts'
import type { ContextQuery } from '../schemas/context.ts'
import { HearthError } from '../schemas/problems.ts'

export interface ContextApiDeps extends ContextDeps {
  runs: Runs
  continuations: Continuations
}

const SECTION_ONLY = ['snapshot_id', 'section_id', 'page'] as const
const REQUESTS_ONLY = ['after', 'limit', 'next'] as const

function refuse(detail: string): never {
  throw new HearthError('invalid_context_query', detail)
}

function given(q: ContextQuery, names: readonly (keyof ContextQuery)[]): string[] {
  return names.filter((n) => q[n] !== undefined)
}

/** The view `query` asks for of a session's context. */
export async function readContext(d: ContextApiDeps, sessionId: string, query: ContextQuery) {
  const view = query.view ?? 'summary'
  const section = given(query, SECTION_ONLY)
  const paging = given(query, REQUESTS_ONLY)
  if (view !== 'section' && section.length > 0) refuse(`${section.join(', ')} go only with view=section`)
  if (view !== 'requests' && paging.length > 0) refuse(`${paging.join(', ')} go only with view=requests`)
  if (view === 'summary') return contextSummary(d, sessionId)
  if (view === 'section') {
    if (section.length < SECTION_ONLY.length) refuse('view=section needs snapshot_id, section_id and page')
    return contextSection(
      d,
      sessionId,
      query.snapshot_id as string,
      query.section_id as string,
      query.page as number,
    )
  }
  if (query.after !== undefined && query.next !== undefined) refuse('Use only one of after and next')
  d.core.require(sessionId)
  const binding = { session_id: sessionId, view: 'requests' }
  const after = query.next
    ? d.continuations.open<{ a: number }>('context', binding, query.next).a
    : (query.after ?? 0)
  const page = requestsPage(d.core, sessionId, after, query.limit ?? 50)
  const last = page.items.at(-1)?.id
  return {
    view: 'requests' as const,
    items: page.items,
    next: page.more && last !== undefined ? d.continuations.mint('context', binding, { a: last }) : null,
  }
}
