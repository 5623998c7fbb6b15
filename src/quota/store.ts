// The stored quota readings (docs/quota.md): the poller records each poll's rows in one
// transaction; GET /server reads the latest reading of each limit and pages through the
// history. Old readings are pruned as new ones are recorded, a bounded batch at a time.
import type { QuotaReading } from '../schemas/server.ts'
import type { Db } from '../store/db.ts'
import type { ReadingRow } from './readings.ts'

const DAY_MS = 86_400_000

/** The most readings `latest()` answers (protocol 3, Limits: "Quota latest list"). */
export const LATEST_MAX = 200
export const HISTORY_MAX = 200
export const HISTORY_DEFAULT = 50

/**
 * Retention. A reading is kept eight days: a trail is read back at most a week (its window,
 * clamped to one day … one week), plus a day so that a week's trail is whole even across a
 * clock's slack. The table also holds at most MAX_ROWS readings (the oldest go first): a
 * safety net for many accounts polled at the busy cadence, far above what a week of a few
 * accounts needs (one limit at the 2-minute busy cadence: 5,040 a week).
 */
export const RETENTION_MS = 8 * DAY_MS
export const MAX_ROWS = 200_000
/** How often recording prunes, and how many rows one prune deletes at most (a few ms). */
const PRUNE_EVERY_MS = 60 * 60_000
const PRUNE_BATCH = 2_000

/** A stored reading: its row and the id that orders readings as they were recorded. */
export interface StoredReading extends ReadingRow {
  id: number
}

export interface HistoryQuery {
  /** 1 … 200, default 50. */
  limit?: number
  /** Where the previous page ended: its `next` (a row id). Readings before it follow. */
  next?: number | null
  /** One limit's trail: provider, account and limitId together. */
  provider?: string
  account?: string
  limitId?: string
  /** Readings observed at or after this time (epoch ms). */
  sinceMs?: number
}

export interface HistoryPage {
  /** Newest first. */
  items: QuotaReading[]
  /** The position to continue from (the last id served), or null at the end. */
  next: number | null
}

export interface QuotaStoreOptions {
  now?: () => number
  retentionMs?: number
  maxRows?: number
}

const COLUMNS = [
  'account',
  'provider',
  'plan',
  'limit_id',
  'limit_label',
  'used_percent',
  'window_label',
  'window_seconds',
  'reset_at_ms',
  'scope',
  'status',
  'error',
  'observed_at_ms',
  'source',
] as const

const NEWEST_FIRST = 'ORDER BY provider DESC, account DESC, limit_id DESC, id DESC LIMIT 1'

/**
 * The newest row of each (provider, account, limit_id), found by skipping through the trail
 * index from its end: each step seeks the greatest key below the previous one, whose first
 * entry from that end is the limit's newest row. One seek per limit, however long the
 * trails are. (SQLite does not use the index for a row value compared with a correlated one,
 * so the walk is three plain range seeks here rather than one recursive query.)
 */
class HeadWalk {
  readonly #last
  readonly #sameAccount
  readonly #sameProvider
  readonly #below
  constructor(db: Db) {
    this.#last = db.prepare(`SELECT * FROM quota_readings ${NEWEST_FIRST}`)
    this.#sameAccount = db.prepare(
      `SELECT * FROM quota_readings WHERE provider = ? AND account = ? AND limit_id < ? ${NEWEST_FIRST}`,
    )
    this.#sameProvider = db.prepare(
      `SELECT * FROM quota_readings WHERE provider = ? AND account < ? ${NEWEST_FIRST}`,
    )
    this.#below = db.prepare(`SELECT * FROM quota_readings WHERE provider < ? ${NEWEST_FIRST}`)
  }

  /** Every limit's newest row, ordered by provider, account, limit id (SQLite's byte order). */
  all(): StoredReading[] {
    const out: StoredReading[] = []
    let r = this.#last.get() as StoredReading | undefined
    while (r) {
      out.push(r)
      r = (this.#sameAccount.get(r.provider, r.account, r.limit_id) ??
        this.#sameProvider.get(r.provider, r.account) ??
        this.#below.get(r.provider)) as StoredReading | undefined
    }
    return out.reverse()
  }
}

/**
 * The heads of a database, shared by every QuotaStore on its connection: GET /server reads
 * them from memory. A write through any of them drops them; a write by another connection
 * shows in `data_version`.
 */
interface HeadsCache {
  heads: StoredReading[] | null
  /** latest() as answered from `heads`. */
  latest: QuotaReading[] | null
  /** History pages as answered, by their query (at most PAGES_KEPT), until a write. */
  pages: Map<string, HistoryPage>
  dataVersion: number
}
/** History pages kept answered: a few clients' trails, five pages each. */
const PAGES_KEPT = 64
const CACHES = new WeakMap<Db, HeadsCache>()

export class QuotaStore {
  readonly #db: Db
  readonly #now: () => number
  readonly #retentionMs: number
  readonly #maxRows: number
  #prunedAt = Number.NEGATIVE_INFINITY
  #backlog = false
  readonly #insert
  readonly #walk
  readonly #dataVersion
  readonly #cache: HeadsCache
  readonly #pages = new Map<string, ReturnType<Db['prepare']>>()
  readonly #prune

  constructor(db: Db, opts: QuotaStoreOptions = {}) {
    this.#db = db
    this.#now = opts.now ?? Date.now
    this.#retentionMs = opts.retentionMs ?? RETENTION_MS
    this.#maxRows = opts.maxRows ?? MAX_ROWS
    this.#insert = db.prepare(
      `INSERT INTO quota_readings (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((c) => `@${c}`).join(', ')})`,
    )
    this.#walk = new HeadWalk(db)
    this.#dataVersion = db.prepare('PRAGMA data_version').pluck()
    this.#prune = {
      old: db.prepare(`DELETE FROM quota_readings WHERE id IN
        (SELECT id FROM quota_readings WHERE observed_at_ms < ? ORDER BY observed_at_ms LIMIT ?)`),
      newest: db.prepare('SELECT MAX(id) FROM quota_readings').pluck(),
      over: db.prepare(`DELETE FROM quota_readings WHERE id IN
        (SELECT id FROM quota_readings WHERE id <= ? ORDER BY id LIMIT ?)`),
    }
    this.#cache = CACHES.get(db) ?? { heads: null, latest: null, pages: new Map(), dataVersion: -1 }
    CACHES.set(db, this.#cache)
  }

  /** Stores one poll's rows together (all or none), then prunes when it is due. */
  record(rows: readonly ReadingRow[]): void {
    if (rows.length === 0) return
    this.#db.transaction(() => {
      for (const row of rows) this.#insert.run(pick(row))
    })()
    this.#changed()
    if (this.#backlog || this.#now() - this.#prunedAt >= PRUNE_EVERY_MS) this.prune()
  }

  /**
   * The latest reading of each limit of each account, at most 200, ordered by provider,
   * account, then limit id (byte order: an account's failure, limit id '', comes first).
   * A failure with no limits (limit id '') shows until a later reading of any real limit of
   * the same account and provider is recorded; an account that only ever failed keeps it.
   * Empty only while the store holds no reading. The same array is answered until a write
   * changes it (GET /server serializes it once per change): callers do not modify it.
   */
  latest(): QuotaReading[] {
    const heads = this.#heads()
    this.#cache.latest ??= withoutSupersededFailures(heads).slice(0, LATEST_MAX).map(toReading)
    return this.#cache.latest
  }

  /** The latest reading of each limit of one account, by the same rules (the poller's busy test). */
  latestOf(provider: string, account: string): StoredReading[] {
    const mine = this.#heads().filter((h) => h.provider === provider && h.account === account)
    return withoutSupersededFailures(mine)
  }

  /** What a write (this connection's, or another's: data_version) makes stale. */
  #changed(): void {
    this.#cache.heads = null
    this.#cache.latest = null
    this.#cache.pages.clear()
  }

  /** Another connection's write (PRAGMA data_version moved) makes the answers stale too. */
  #checkVersion(): void {
    const version = this.#dataVersion.get() as number
    if (this.#cache.dataVersion === version) return
    this.#changed()
    this.#cache.dataVersion = version
  }

  #heads(): StoredReading[] {
    this.#checkVersion()
    if (this.#cache.heads === null) this.#cache.heads = this.#walk.all()
    return this.#cache.heads
  }

  /**
   * Stored readings newest first (by id), one keyset page. The same page object is answered
   * for the same query until a write (clients read the same trails again and again, between
   * polls minutes apart); callers do not modify it.
   */
  history(q: HistoryQuery = {}): HistoryPage {
    this.#checkVersion()
    const key = JSON.stringify([q.limit, q.next, q.provider, q.account, q.limitId, q.sinceMs])
    let page = this.#cache.pages.get(key)
    if (page === undefined) {
      page = this.#readPage(q)
      if (this.#cache.pages.size >= PAGES_KEPT)
        this.#cache.pages.delete(this.#cache.pages.keys().next().value!)
      this.#cache.pages.set(key, page)
    }
    return page
  }

  #readPage(q: HistoryQuery): HistoryPage {
    const limit = Math.min(HISTORY_MAX, Math.max(1, q.limit ?? HISTORY_DEFAULT))
    const trail = q.provider !== undefined && q.account !== undefined && q.limitId !== undefined
    const params: Record<string, unknown> = { before: q.next ?? Number.MAX_SAFE_INTEGER, take: limit + 1 }
    if (trail) Object.assign(params, { provider: q.provider, account: q.account, limit_id: q.limitId })
    if (q.sinceMs !== undefined) params.since = q.sinceMs
    const rows = this.#page(trail, q.sinceMs !== undefined).all(params) as StoredReading[]
    const more = rows.length > limit
    const page = rows.slice(0, limit)
    return { items: page.map(toReading), next: more ? page[page.length - 1].id : null }
  }

  count(): number {
    return (this.#db.prepare('SELECT COUNT(*) AS n FROM quota_readings').get() as { n: number }).n
  }

  /**
   * Deletes readings past retention (older than eight days, or beyond the newest MAX_ROWS),
   * at most a batch of each per call; when a batch filled, the next record() prunes again.
   * Returns how many rows went.
   */
  prune(): number {
    this.#prunedAt = this.#now()
    const old = this.#prune.old.run(this.#prunedAt - this.#retentionMs, PRUNE_BATCH).changes
    const newest = this.#prune.newest.get() as number | null
    const over = newest === null ? 0 : this.#prune.over.run(newest - this.#maxRows, PRUNE_BATCH).changes
    this.#backlog = old === PRUNE_BATCH || over === PRUNE_BATCH
    if (old + over > 0) this.#changed()
    return old + over
  }

  /** The statement of one page shape: all readings or one trail, with or without a since. */
  #page(trail: boolean, since: boolean) {
    const key = `${trail}/${since}`
    let stmt = this.#pages.get(key)
    if (!stmt) {
      const where = ['id < $before']
      if (trail) where.push('provider = $provider', 'account = $account', 'limit_id = $limit_id')
      if (since) where.push('observed_at_ms >= $since')
      stmt = this.#db.prepare(
        `SELECT * FROM quota_readings WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $take`,
      )
      this.#pages.set(key, stmt)
    }
    return stmt
  }
}

/** Drops each failure (limit id '') that a later reading of a real limit of its account supersedes. */
function withoutSupersededFailures(heads: StoredReading[]): StoredReading[] {
  const newestReal = new Map<string, number>()
  for (const h of heads) {
    if (h.limit_id === '') continue
    const key = accountKey(h)
    newestReal.set(key, Math.max(newestReal.get(key) ?? 0, h.id))
  }
  return heads.filter((h) => h.limit_id !== '' || (newestReal.get(accountKey(h)) ?? 0) < h.id)
}

function accountKey(r: ReadingRow): string {
  return JSON.stringify([r.provider, r.account])
}

function pick(row: ReadingRow): Record<(typeof COLUMNS)[number], unknown> {
  const out = {} as Record<(typeof COLUMNS)[number], unknown>
  for (const c of COLUMNS) out[c] = row[c]
  return out
}

/** A stored row as the API shows it (QuotaReading): its time as RFC 3339, without its id. */
export function toReading(r: StoredReading): QuotaReading {
  return {
    account: r.account,
    provider: r.provider,
    plan: r.plan,
    limit_id: r.limit_id,
    limit_label: r.limit_label,
    used_percent: r.used_percent,
    window_label: r.window_label,
    window_seconds: r.window_seconds,
    reset_at_ms: r.reset_at_ms,
    scope: r.scope,
    status: r.status,
    error: r.error,
    observed_at: new Date(r.observed_at_ms).toISOString(),
    source: 'poll',
  }
}
