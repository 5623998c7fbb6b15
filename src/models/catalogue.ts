// The catalogue the daemon answers from: HOME/cache/models.json when `hearth models refresh`
// wrote a valid one, else the snapshot shipped in src/models/snapshot.json. Nothing is loaded
// at start-up (start-up time matters); the first /models request loads it. Each request costs
// one stat of the cache file, so a refresh applies without a restart. Never fetches.
import { readFileSync, statSync } from 'node:fs'
import type { ModelInfo } from '../schemas/models.ts'
import { checkCatalogue, type RawCatalogue } from './catalogue-shape.ts'
import { byId, listedRow } from './rows.ts'

export interface CatalogueState {
  kind: 'snapshot' | 'cache'
  /** RFC 3339: the cache file's mtime, or the newest last_updated date in the snapshot. */
  updatedAt: string
  has(provider: string): boolean
  /** The provider's models as rows, sorted by id; empty for a provider it does not list. */
  rows(provider: string): readonly ModelInfo[]
  row(provider: string, modelId: string): ModelInfo | undefined
}

function stateOf(raw: RawCatalogue, kind: CatalogueState['kind'], updatedAt: string): CatalogueState {
  // Rows are built per provider on first use: a refreshed catalogue holds thousands of
  // models across a hundred providers, and a request reads one provider.
  const built = new Map<string, readonly ModelInfo[]>()
  const has = (p: string) => Object.hasOwn(raw, p)
  const rows = (p: string) => {
    let r = built.get(p)
    if (!r) {
      r = has(p) ? Object.entries(raw[p].models).map(([id, m]) => listedRow(p, id, m)) : []
      r = [...r].sort(byId)
      built.set(p, r)
    }
    return r
  }
  const row = (p: string, id: string) =>
    has(p) && Object.hasOwn(raw[p].models, id) ? listedRow(p, id, raw[p].models[id]) : undefined
  return { kind, updatedAt, has, rows, row }
}

/** The newest YYYY-MM-DD the snapshot states, as the time its facts are current to. */
function newestDate(raw: RawCatalogue): string {
  let newest = '1970-01-01'
  for (const p of Object.values(raw)) {
    for (const m of Object.values(p.models)) {
      for (const d of [m.last_updated, m.release_date]) {
        if (typeof d === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(d) && d > newest) newest = d
      }
    }
  }
  return `${newest}T00:00:00.000Z`
}

export type SnapshotLoader = () => Promise<unknown>

/** The shipped snapshot, imported on first use so the bundle keeps it in a chunk of its own. */
export const loadSnapshot: SnapshotLoader = async () =>
  (await import('./snapshot.json', { with: { type: 'json' } })).default

export class Catalogue {
  readonly #cachePath: string
  readonly #loadSnapshot: SnapshotLoader
  #snapshot: Promise<CatalogueState> | undefined
  #snapshotState: CatalogueState | undefined
  /** The cache file last read: its stat stamp and what it held (null: not a catalogue). */
  #cache: { stamp: string; state: CatalogueState | null } | undefined

  constructor(cachePath: string, load: SnapshotLoader = loadSnapshot) {
    this.#cachePath = cachePath
    this.#loadSnapshot = load
  }

  async current(): Promise<CatalogueState> {
    const cached = this.#fromCache()
    if (cached) return cached
    this.#snapshot ??= this.#loadSnapshot().then((raw) => {
      const check = checkCatalogue(raw)
      if (!check.ok) throw new Error(`the shipped model snapshot is broken: ${check.reason}`)
      this.#snapshotState = stateOf(check.catalogue, 'snapshot', newestDate(check.catalogue))
      return this.#snapshotState
    })
    return this.#snapshot
  }

  /**
   * What current() answers when that needs no loading: the cache file, or the snapshot once
   * a current() has loaded it; otherwise undefined. For callers that cannot wait.
   */
  peek(): CatalogueState | undefined {
    return this.#fromCache() ?? this.#snapshotState
  }

  #fromCache(): CatalogueState | null {
    const stamp = this.#stamp()
    if (stamp === null) {
      this.#cache = undefined
      return null
    }
    if (this.#cache?.stamp !== stamp.key) this.#cache = { stamp: stamp.key, state: this.#read(stamp.mtimeMs) }
    return this.#cache.state
  }

  /** size, mtime and inode: an atomic rewrite changes the inode even within one mtime tick. */
  #stamp(): { key: string; mtimeMs: number } | null {
    try {
      const st = statSync(this.#cachePath)
      return st.isFile() ? { key: `${st.ino}:${st.size}:${st.mtimeMs}`, mtimeMs: st.mtimeMs } : null
    } catch {
      return null
    }
  }

  /** A cache file that does not parse or has the wrong shape is passed over for the snapshot. */
  #read(mtimeMs: number): CatalogueState | null {
    try {
      const check = checkCatalogue(JSON.parse(readFileSync(this.#cachePath, 'utf8')))
      return check.ok ? stateOf(check.catalogue, 'cache', new Date(mtimeMs).toISOString()) : null
    } catch {
      return null
    }
  }
}
