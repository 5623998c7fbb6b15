// QuotaStore on a real SQLite file with the daemon's migrations: one transaction per poll,
// the latest reading of each limit with the failure rules, keyset history, retention.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, beforeEach, describe, it } from 'node:test'
import type { ReadingRow } from '../../src/quota/readings.ts'
import { type HistoryQuery, MAX_ROWS, QuotaStore, RETENTION_MS } from '../../src/quota/store.ts'
import { type Db, migrate, openDatabase } from '../../src/store/db.ts'
import { failureRow, readingRow } from '../helpers/quota-seed.ts'

const T0 = Date.parse('2026-03-01T00:00:00.000Z')
const MIN = 60_000

const dir = mkdtempSync(join(tmpdir(), 'hearth-quota-store-'))
after(() => rmSync(dir, { recursive: true, force: true }))
let n = 0

function freshDb(): Db {
  const db = openDatabase(join(dir, `q${n++}.db`))
  migrate(db)
  return db
}

/** The latest as [account, limit_id, observed minute] triples: what the rules decide. */
function shown(store: QuotaStore): [string, string, number][] {
  return store.latest().map((r) => [r.account, r.limit_id, (Date.parse(r.observed_at) - T0) / MIN])
}

const ok = (minute: number, fields: Partial<ReadingRow> = {}) =>
  readingRow({ observed_at_ms: T0 + minute * MIN, ...fields })
const failed = (minute: number, fields: Partial<ReadingRow> = {}) =>
  failureRow({ observed_at_ms: T0 + minute * MIN, ...fields })

describe('QuotaStore', () => {
  let db: Db
  let store: QuotaStore
  let now: number
  beforeEach(() => {
    db = freshDb()
    now = T0 + 60 * MIN
    store = new QuotaStore(db, { now: () => now })
  })

  it('records a poll in one transaction: all rows or none', () => {
    store.record([ok(1), ok(1, { limit_id: 'secondary' })])
    assert.equal(store.count(), 2)
    const broken = { ...ok(2, { limit_id: 'tertiary' }), account: null as unknown as string }
    assert.throws(() => store.record([ok(2), broken]), /NOT NULL/)
    assert.equal(store.count(), 2, 'the poll with a bad row left nothing')
    assert.deepEqual(shown(store), [
      ['a@example.test', 'primary', 1],
      ['a@example.test', 'secondary', 1],
    ])
  })

  it('stores rows raw and answers them as QuotaReading (RFC 3339 time, null kept null)', () => {
    store.record([ok(5, { used_percent: null, reset_at_ms: null, plan: null, scope: 'Team' })])
    assert.deepEqual(store.latest(), [
      {
        account: 'a@example.test',
        provider: 'codex',
        plan: null,
        limit_id: 'primary',
        limit_label: 'Session',
        used_percent: null,
        window_label: '5h',
        window_seconds: 18_000,
        reset_at_ms: null,
        scope: 'Team',
        status: 'none',
        error: null,
        observed_at: '2026-03-01T00:05:00.000Z',
        source: 'poll',
      },
    ])
  })

  it('latest: the newest reading of each limit, ordered by provider, account, limit id', () => {
    assert.deepEqual(store.latest(), [], 'empty while nothing is stored')
    store.record([ok(1, { account: 'b' }), ok(1, { account: 'b', limit_id: 'secondary' })])
    store.record([ok(2, { provider: 'claude', account: 'z' })])
    store.record([ok(3, { account: 'a' }), ok(3, { account: 'a', limit_id: 'gemini' })])
    store.record([ok(4, { account: 'b', used_percent: 44 })])
    assert.deepEqual(shown(store), [
      ['z', 'primary', 2],
      ['a', 'gemini', 3],
      ['a', 'primary', 3],
      ['b', 'primary', 4],
      ['b', 'secondary', 1],
    ])
    assert.equal(store.latest()[3].used_percent, 44)
  })

  describe('failure rules (a failed poll with no limits, limit id "")', () => {
    it('an account that only ever fails keeps its failure; a later failure replaces it', () => {
      store.record([failed(1)])
      assert.deepEqual(shown(store), [['a@example.test', '', 1]])
      store.record([failed(2, { error: 'network down' })])
      assert.deepEqual(shown(store), [['a@example.test', '', 2]])
      assert.equal(store.latest()[0].error, 'network down')
    })

    it('success then failure: the failure shows beside the older readings', () => {
      store.record([ok(1), ok(1, { limit_id: 'secondary' })])
      store.record([failed(2)])
      assert.deepEqual(shown(store), [
        ['a@example.test', '', 2],
        ['a@example.test', 'primary', 1],
        ['a@example.test', 'secondary', 1],
      ])
    })

    it('failure then success: a later reading of any real limit drops the failure', () => {
      store.record([failed(1)])
      store.record([ok(2, { limit_id: 'secondary' })])
      assert.deepEqual(shown(store), [['a@example.test', 'secondary', 2]])
    })

    it('success, failure, success, failure: only the last state counts', () => {
      store.record([ok(1)])
      store.record([failed(2)])
      store.record([ok(3)])
      assert.deepEqual(shown(store), [['a@example.test', 'primary', 3]])
      store.record([failed(4)])
      assert.deepEqual(shown(store), [
        ['a@example.test', '', 4],
        ['a@example.test', 'primary', 3],
      ])
    })

    it('a reading that carries an error beside its limits is a real reading: it drops the failure', () => {
      store.record([failed(1)])
      store.record([ok(2, { error: 'partial' })])
      assert.deepEqual(shown(store), [['a@example.test', 'primary', 2]])
    })

    it('only the same account and provider supersede a failure', () => {
      store.record([failed(1, { account: 'a' })])
      store.record([ok(2, { account: 'b' })])
      store.record([ok(3, { account: 'a', provider: 'claude' })])
      assert.deepEqual(
        store.latest().map((r) => [r.provider, r.account, r.limit_id]),
        [
          ['claude', 'a', 'primary'],
          ['codex', 'a', ''],
          ['codex', 'b', 'primary'],
        ],
      )
    })

    it('latestOf answers one account by the same rules', () => {
      store.record([
        ok(1, { account: 'a' }),
        ok(1, { account: 'a', limit_id: 'secondary', used_percent: 90 }),
      ])
      store.record([ok(1, { account: 'b' })])
      store.record([failed(2, { account: 'a' })])
      assert.deepEqual(
        store.latestOf('codex', 'a').map((r) => [r.limit_id, r.used_percent]),
        [
          ['', null],
          ['primary', 10],
          ['secondary', 90],
        ],
      )
      store.record([ok(3, { account: 'a' })])
      assert.deepEqual(
        store.latestOf('codex', 'a').map((r) => r.limit_id),
        ['primary', 'secondary'],
      )
      assert.deepEqual(store.latestOf('codex', 'nobody'), [])
    })
  })

  it('latest holds at most 200 readings, the first 200 in its order', () => {
    const rows = Array.from({ length: 250 }, (_, i) => ok(1, { limit_id: `l${String(i).padStart(3, '0')}` }))
    store.record(rows)
    const latest = store.latest()
    assert.equal(latest.length, 200)
    assert.equal(latest[0].limit_id, 'l000')
    assert.equal(latest[199].limit_id, 'l199')
  })

  it('sees rows another connection wrote (the cache follows the file, not only this store)', () => {
    store.record([ok(1)])
    assert.equal(store.latest().length, 1)
    const other = openDatabase(db.name)
    new QuotaStore(other, { now: () => now }).record([ok(2, { limit_id: 'secondary' })])
    other.close()
    assert.deepEqual(
      store.latest().map((r) => r.limit_id),
      ['primary', 'secondary'],
    )
    // And a second store on the same connection shares what a record dropped.
    const twin = new QuotaStore(db)
    assert.equal(twin.latest().length, 2)
    store.record([ok(3, { limit_id: 'tertiary' })])
    assert.equal(twin.latest().length, 3)
  })

  it('answers a history page again from memory until a write, this connection’s or another’s', () => {
    store.record([ok(1)])
    const first = store.history({ limit: 10 })
    assert.equal(store.history({ limit: 10 }), first, 'the same page object, not read again')
    store.record([ok(2)])
    const second = store.history({ limit: 10 })
    assert.notEqual(second, first)
    assert.equal(second.items.length, 2, 'the new reading is on the page')
    const other = openDatabase(db.name)
    new QuotaStore(other, { now: () => now }).record([ok(3)])
    other.close()
    assert.equal(store.history({ limit: 10 }).items.length, 3, 'another connection’s write is seen')
    now += 9 * 24 * 60 * MIN
    store.record([ok(9 * 24 * 60)])
    assert.equal(store.history({ limit: 10 }).items.length, 1, 'a prune drops pages too')
  })

  describe('history', () => {
    /** Every page of a query, following `next`, with `between` run after each page. */
    function walk(q: HistoryQuery, between: (page: number) => void = () => {}) {
      const ids: string[] = []
      let next: number | null = null
      let pages = 0
      do {
        const page = store.history({ ...q, next })
        assert.ok(page.items.length <= (q.limit ?? 50))
        ids.push(...page.items.map(key))
        next = page.next
        between(++pages)
      } while (next !== null)
      return { ids, pages }
    }
    const key = (r: { limit_id: string; observed_at: string }) =>
      `${r.limit_id}@${(Date.parse(r.observed_at) - T0) / MIN}`

    it('pages newest first by id; readings recorded between pages appear in none of the later pages', () => {
      for (let m = 0; m < 23; m++) store.record([ok(m), ok(m, { limit_id: 'secondary' })])
      const expected = store.history({ limit: 200 }).items.map(key)
      assert.equal(expected.length, 46)
      assert.deepEqual(expected.slice(0, 2), ['secondary@22', 'primary@22'])
      let minute = 100
      const { ids, pages } = walk({ limit: 5 }, () => store.record([ok(minute++)]))
      assert.deepEqual(ids, expected, 'no duplicates, no gaps, nothing newer than the first page')
      assert.equal(pages, 10)
    })

    it('a page that ends exactly at the last reading has no next', () => {
      for (let m = 0; m < 4; m++) store.record([ok(m)])
      const page = store.history({ limit: 4 })
      assert.equal(page.items.length, 4)
      assert.equal(page.next, null)
      const first = store.history({ limit: 3 })
      assert.notEqual(first.next, null)
      const rest = store.history({ limit: 3, next: first.next })
      assert.deepEqual(rest.items.map(key), ['primary@0'])
      assert.equal(rest.next, null)
    })

    it('one limit trail, and since (observed at or after it)', () => {
      for (let m = 0; m < 30; m++) {
        store.record([ok(m), ok(m, { limit_id: 'secondary' }), ok(m, { account: 'b' })])
      }
      const trail = { provider: 'codex', account: 'a@example.test', limitId: 'secondary' }
      const all = walk({ ...trail, limit: 7 })
      assert.deepEqual(
        all.ids,
        Array.from({ length: 30 }, (_, i) => `secondary@${29 - i}`),
      )
      const since = walk({ ...trail, limit: 4, sinceMs: T0 + 20 * MIN })
      assert.deepEqual(
        since.ids,
        Array.from({ length: 10 }, (_, i) => `secondary@${29 - i}`),
      )
      assert.equal(since.pages, 3)
      assert.deepEqual(store.history({ ...trail, limitId: 'nope' }), { items: [], next: null })
      assert.deepEqual(store.history({ ...trail, sinceMs: T0 + 30 * MIN }), { items: [], next: null })
    })

    it('limit: default 50, at most 200', () => {
      store.record(Array.from({ length: 250 }, (_, i) => ok(i)))
      assert.equal(store.history().items.length, 50)
      assert.equal(store.history({ limit: 500 }).items.length, 200)
      assert.equal(store.history({ limit: 0 }).items.length, 1)
    })
  })

  describe('retention', () => {
    it('recording prunes readings older than eight days, at most once an hour', () => {
      assert.equal(RETENTION_MS, 8 * 24 * 60 * MIN)
      now = T0 + RETENTION_MS
      store.record([ok(-1), ok(0), ok(1)])
      assert.deepEqual(
        store.history().items.map((r) => r.observed_at),
        ['2026-03-01T00:01:00.000Z', '2026-03-01T00:00:00.000Z'],
        'the one before the cutoff went',
      )
      now += 30 * MIN
      store.record([ok(2)])
      assert.equal(store.count(), 3, 'not due again within the hour')
      now += 31 * MIN
      store.record([ok(100)])
      assert.deepEqual(
        store.history().items.map((r) => r.observed_at),
        ['2026-03-01T01:40:00.000Z'],
      )
    })

    it('a pruned latest reading leaves latest (a gone account does not linger)', () => {
      store.record([ok(0, { account: 'gone' })])
      now = T0 + RETENTION_MS + 10 * MIN
      store.record([ok(9 * 24 * 60, { account: 'here' })])
      assert.deepEqual(
        store.latest().map((r) => r.account),
        ['here'],
      )
    })

    it('at most maxRows rows: the oldest go first, a batch at a time until none is over', () => {
      const small = new QuotaStore(db, { now: () => now, maxRows: 100 })
      small.record(Array.from({ length: 2_150 }, (_, i) => ok(i % 50)))
      assert.equal(small.count(), 150, 'one batch of 2,000 went on this record')
      small.record([ok(55)])
      assert.equal(small.count(), 100, 'the backlog went on the next record, though not an hour later')
      const newest = small.history({ limit: 1 }).items[0]
      assert.equal(newest.observed_at, new Date(T0 + 55 * MIN).toISOString())
      assert.equal(MAX_ROWS, 200_000)
    })

    it('prune() reports how many rows went', () => {
      store.record([ok(0), ok(1)])
      now = T0 + RETENTION_MS + 30_000
      assert.equal(store.prune(), 1)
      assert.equal(store.prune(), 0)
    })
  })
})
