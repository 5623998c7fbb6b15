// The sessions domain as one object the API layer holds.
import { isAbsolute, resolve } from 'node:path'
import type { SessionChangeRequest, SessionCreationRequest } from '../schemas/session-configuration.ts'
import type { Db } from '../store/db.ts'
import { CollectionStream } from './collection-stream.ts'
import { changeSession } from './configure.ts'
import { SessionsCore } from './core.ts'
import { createSession, type ProfileDefaults } from './create.ts'
import { Hub } from './hub.ts'
import { checkFilter, type ListFilter, type ListKey, listSessions } from './list.ts'
import { deleteLeaf, deleteSubtree, type Interrupter, resumeDeletions } from './remove.ts'
import { SessionStream, type StreamStart } from './session-stream.ts'
import { recordVisit } from './visits.ts'

/** UUIDs are case-insensitive on input (RFC 9562); rows hold the lower-case form. */
const idOf = (id: string) => id.toLowerCase()

/**
 * The filter in canonical form: ids as stored, an absolute workspace normalized as stored,
 * and the effective scope spelled out. Equivalent queries then look alike (and share
 * continuation tokens).
 */
export function normalizeListFilter(f: ListFilter): ListFilter {
  return {
    ...f,
    scope: f.scope ?? (f.parent_id !== undefined || f.family_id !== undefined ? 'all' : 'roots'),
    ...(f.parent_id !== undefined && { parent_id: idOf(f.parent_id) }),
    ...(f.family_id !== undefined && { family_id: idOf(f.family_id) }),
    ...(f.workspace !== undefined && isAbsolute(f.workspace) && { workspace: resolve(f.workspace) }),
  }
}

export class Sessions {
  readonly core: SessionsCore
  readonly #defaults: ProfileDefaults
  readonly #interrupt: Interrupter
  readonly #streams = new Set<{ close: () => void }>()

  constructor(db: Db, opts: { now: () => number; defaults: ProfileDefaults; interrupt: Interrupter }) {
    this.core = new SessionsCore(db, new Hub(), opts.now)
    this.#defaults = opts.defaults
    this.#interrupt = opts.interrupt
  }

  /** Finishes work a previous daemon left half done. */
  resume(): Promise<void> {
    this.core.loadPendingMoves()
    return resumeDeletions(this.core, this.#interrupt)
  }

  create(id: string, req: SessionCreationRequest) {
    const ids =
      req.kind === 'forked'
        ? { ...req, source_id: idOf(req.source_id) }
        : req.kind === 'child'
          ? { ...req, parent_id: idOf(req.parent_id) }
          : req
    return createSession(this.core, this.#defaults, idOf(id), ids)
  }

  get(id: string) {
    return this.core.require(idOf(id))
  }

  /** The row and its last `tail` history entries. */
  read(id: string, tail: number) {
    const row = this.get(id)
    return { row, extras: this.core.readExtras(row.id, tail) }
  }

  change(id: string, ifMatch: string | undefined, req: SessionChangeRequest) {
    const modelOf = (profile: string) => this.#defaults.resolve(profile, undefined).model
    return changeSession(this.core, idOf(id), ifMatch, req, modelOf)
  }

  remove(
    id: string,
    ifMatch: string | undefined,
    scope: 'leaf' | 'subtree',
    familyRevision: number | undefined,
  ) {
    if (scope === 'leaf') return Promise.resolve(deleteLeaf(this.core, idOf(id), ifMatch))
    return deleteSubtree(this.core, idOf(id), ifMatch, familyRevision, this.#interrupt)
  }

  visit(id: string, visitId: string) {
    return recordVisit(this.core, idOf(id), idOf(visitId))
  }

  list(filter: ListFilter, sort: 'activity' | 'frequent', limit: number, after: ListKey | null) {
    const f = normalizeListFilter(filter)
    checkFilter(this.core, f)
    return listSessions(this.core, f, sort, limit, after)
  }

  sessionStream(id: string, start: StreamStart): SessionStream {
    const row = this.get(id)
    return this.#track(new SessionStream(this.core, row.id, start))
  }

  collectionStream(filter: ListFilter): CollectionStream {
    const f = normalizeListFilter(filter)
    checkFilter(this.core, f)
    return this.#track(new CollectionStream(this.core, f))
  }

  /** Ends every open stream (drain). */
  closeStreams(): void {
    for (const s of [...this.#streams]) s.close()
  }

  #track<T extends { close: () => void }>(s: T): T {
    this.#streams.add(s)
    const close = s.close.bind(s)
    s.close = () => {
      this.#streams.delete(s)
      close()
    }
    return s
  }
}
