// The quota read path on the real daemon: readings recorded into the home's state.db through
// the store before the daemon starts, then GET /server as clients read it (docs/quota.md).
import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import type { ReadingRow } from '../../src/quota/readings.ts'
import { startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'
import { failureRow, readingRow, seedQuota } from '../helpers/quota-seed.ts'

const MIN = 60_000
/** Readings of the last few hours, well inside retention. */
const T0 = Math.floor(Date.now() / MIN) * MIN - 6 * 60 * MIN
const at = (minute: number) => T0 + minute * MIN
const A = 'a@example.test'
const TRAIL_ROWS = 230

function polls(): ReadingRow[][] {
  const out: ReadingRow[][] = []
  // Account a (codex): a long primary trail, a failure, then a good poll that supersedes it.
  for (let m = 0; m < TRAIL_ROWS; m++)
    out.push([readingRow({ account: A, observed_at_ms: at(m), used_percent: m % 100 })])
  out.push([failureRow({ account: A, observed_at_ms: at(240) })])
  out.push([
    readingRow({ account: A, observed_at_ms: at(250), used_percent: 31 }),
    readingRow({ account: A, observed_at_ms: at(250), limit_id: 'secondary', window_label: '7d' }),
  ])
  // Account b (codex) only ever fails: its latest failure stays.
  out.push([failureRow({ account: 'b@example.test', observed_at_ms: at(241), error: 'first' })])
  out.push([failureRow({ account: 'b@example.test', observed_at_ms: at(251), error: 'second' })])
  // Account c (claude): a good poll, then a failure that shows beside it.
  out.push([readingRow({ provider: 'claude', account: 'c', observed_at_ms: at(242), plan: 'max' })])
  out.push([failureRow({ provider: 'claude', account: 'c', observed_at_ms: at(252) })])
  return out
}

describe('GET /server reads stored quota readings', () => {
  let d: TestDaemon
  const total = polls().flat().length
  const home = tempHome('hearth-quota-read-')
  before(async () => {
    seedQuota(home, polls())
    d = await startDaemon({ home })
  })
  after(async () => {
    await d.stop()
    rmSync(home, { recursive: true, force: true })
  })

  const get = async (query: string) => {
    const r = await d.request({ path: `/server${query ? `?${query}` : ''}` })
    assert.equal(r.status, 200, `${query}: ${r.text()}`)
    return r.json()
  }
  const refused = async (query: string, code: string) => {
    const r = await d.request({ path: `/server?${query}` })
    assert.equal(r.status, 400, `${query}: ${r.text()}`)
    assert.match(String(r.headers['content-type']), /^application\/problem\+json/, query)
    assert.equal(r.json().code, code, query)
  }
  const trail = (account = A, limit = 'primary') =>
    `quota_provider=codex&quota_account=${encodeURIComponent(account)}&quota_limit=${limit}`
  const minuteOf = (r: { observed_at: string }) => (Date.parse(r.observed_at) - T0) / MIN

  it('quota: the latest reading of each limit, failures by the rules, in provider, account, limit order', async () => {
    const { quota } = await get('')
    assert.deepEqual(
      quota.map((r: any) => [r.provider, r.account, r.limit_id, minuteOf(r), r.error]),
      [
        ['claude', 'c', '', 252, 'Unauthorized (401)'],
        ['claude', 'c', 'primary', 242, null],
        ['codex', A, 'primary', 250, null],
        ['codex', A, 'secondary', 250, null],
        ['codex', 'b@example.test', '', 251, 'second'],
      ],
    )
    assert.deepEqual(quota[2], {
      account: A,
      provider: 'codex',
      plan: 'plus',
      limit_id: 'primary',
      limit_label: 'Session',
      used_percent: 31,
      window_label: '5h',
      window_seconds: 18_000,
      reset_at_ms: at(250) + 3_600_000,
      scope: null,
      status: 'none',
      error: null,
      observed_at: new Date(at(250)).toISOString(),
      source: 'poll',
    })
    assert.equal('quota_history' in (await get('')), false)
  })

  it('include=quota_history: every stored reading newest first, across pages, once each', async () => {
    const seen: any[] = []
    let next: string | null = null
    let pages = 0
    do {
      const q: string = `include=quota_history&limit=100${next ? `&next=${encodeURIComponent(next)}` : ''}`
      const body = await get(q)
      assert.ok(body.quota.length > 0, 'quota is there beside the history')
      seen.push(...body.quota_history.items)
      next = body.quota_history.next
      pages++
    } while (next)
    assert.equal(pages, Math.ceil(total / 100))
    assert.equal(seen.length, total)
    const minutes = seen.map(minuteOf)
    assert.deepEqual(minutes.slice(0, 4), [252, 242, 251, 241], 'newest recorded first')
    assert.deepEqual(minutes.slice(-2), [1, 0])
    const defaults = await get('include=quota_history')
    assert.equal(defaults.quota_history.items.length, 50, 'limit defaults to 50')
  })

  it('one limit trail, paged, and quota_since keeps readings observed at or after it', async () => {
    const walk = async (query: string, limit: number) => {
      const items: any[] = []
      let next: string | null = null
      do {
        const tail = next ? `&next=${encodeURIComponent(next)}` : ''
        const body = await get(`include=quota_history&${query}&limit=${limit}${tail}`)
        items.push(...body.quota_history.items)
        next = body.quota_history.next
      } while (next)
      return items
    }
    const all = await walk(trail(), 200)
    assert.equal(all.length, TRAIL_ROWS + 1)
    assert.ok(all.every((r) => r.limit_id === 'primary' && r.account === A && r.provider === 'codex'))
    assert.deepEqual(all.slice(0, 2).map(minuteOf), [250, TRAIL_ROWS - 1])
    const since = new Date(at(200)).toISOString()
    const recent = await walk(`${trail()}&quota_since=${since}`, 7)
    assert.deepEqual(recent.map(minuteOf), [
      250,
      ...Array.from({ length: TRAIL_ROWS - 200 }, (_, i) => TRAIL_ROWS - 1 - i),
    ])
    const failures = await get(`include=quota_history&${trail('b@example.test', '')}`)
    assert.deepEqual(
      failures.quota_history.items.map((r: any) => r.error),
      ['second', 'first'],
    )
    const none = await get(`include=quota_history&${trail('nobody')}`)
    assert.deepEqual(none.quota_history, { items: [], next: null })
  })

  it('a continuation is bound to its query: another filter, since or none refuse it; limit may change', async () => {
    const since = `quota_since=${new Date(at(10)).toISOString()}`
    const first = await get(`include=quota_history&${trail()}&${since}&limit=5`)
    const next = encodeURIComponent(first.quota_history.next)
    const more = await get(`include=quota_history&${trail()}&${since}&limit=3&next=${next}`)
    assert.equal(minuteOf(more.quota_history.items[0]), minuteOf(first.quota_history.items[4]) - 1)
    await refused(
      `include=quota_history&${trail('b@example.test')}&${since}&next=${next}`,
      'invalid_continuation',
    )
    await refused(
      `include=quota_history&${trail(A, 'secondary')}&${since}&next=${next}`,
      'invalid_continuation',
    )
    await refused(
      `include=quota_history&${trail()}&quota_since=${new Date(at(11)).toISOString()}&next=${next}`,
      'invalid_continuation',
    )
    await refused(`include=quota_history&${trail()}&next=${next}`, 'invalid_continuation')
    await refused(`include=quota_history&next=${next}`, 'invalid_continuation')
    // Unfiltered tokens do not open filtered pages either.
    const plain = (await get('include=quota_history&limit=1')).quota_history.next
    await refused(
      `include=quota_history&${trail()}&next=${encodeURIComponent(plain)}`,
      'invalid_continuation',
    )
  })

  it('a tampered or foreign continuation is invalid_continuation', async () => {
    const token: string = (await get('include=quota_history&limit=1')).quota_history.next
    const [payload, mac] = token.split('.')
    const body = JSON.parse(Buffer.from(payload, 'base64url').toString())
    const moved = Buffer.from(JSON.stringify({ ...body, k: 1 })).toString('base64url')
    for (const bad of [
      `${moved}.${mac}`,
      `${payload}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`,
      `${payload}.${mac}.x`,
      'bm90LW91cnM',
      payload,
    ])
      await refused(`include=quota_history&next=${encodeURIComponent(bad)}`, 'invalid_continuation')
    // A continuation of another listing (the storage report's files) is not a quota position.
    const foreign: string = (await d.request({ path: '/storage?limit=1' })).json().files.next
    assert.equal(typeof foreign, 'string')
    await refused(`include=quota_history&next=${encodeURIComponent(foreign)}`, 'invalid_continuation')
  })

  it('every bad input is a problem with its stable code', async () => {
    const since = 'quota_since=2026-01-01T00:00:00.000Z'
    const cases: [string, string][] = [
      ['include=quota_history&quota_what=1', 'unknown_parameter'],
      ['quota=1', 'unknown_parameter'],
      ['include=everything', 'invalid_parameter'],
      ['include=quota_history&limit=abc', 'invalid_parameter'],
      ['include=quota_history&limit=1.5', 'invalid_parameter'],
      ['include=quota_history&limit=0', 'invalid_parameter'],
      ['include=quota_history&limit=201', 'invalid_parameter'],
      ['include=quota_history&limit=-1', 'invalid_parameter'],
      ['include=quota_history&limit=5&limit=6', 'duplicate_parameter'],
      ['include=quota_history&quota_provider=codex&quota_account=a', 'invalid_parameter'],
      ['include=quota_history&quota_limit=primary', 'invalid_parameter'],
      [`include=quota_history&${since}`, 'invalid_parameter'],
      [`include=quota_history&${trail()}&quota_since=2026-01-01T01:00:00.000%2B01:00`, 'invalid_parameter'],
      [`include=quota_history&${trail()}&quota_since=2026-01-01T00:00:00`, 'invalid_parameter'],
      [`include=quota_history&${trail()}&quota_since=2026-13-01T00:00:00Z`, 'invalid_parameter'],
      [`include=quota_history&${trail()}&quota_since=yesterday`, 'invalid_parameter'],
      [`include=quota_history&${trail()}&quota_since=1767225600000`, 'invalid_parameter'],
      [`include=quota_history&quota_provider=&quota_account=a&quota_limit=primary`, 'invalid_parameter'],
      [trail(), 'invalid_parameter'],
      ['limit=5', 'invalid_parameter'],
      [`${trail()}&${since}`, 'invalid_parameter'],
      ['next=abc', 'invalid_parameter'],
      ['include=quota_history&next=', 'invalid_parameter'],
    ]
    for (const [query, code] of cases) await refused(query, code)
    // A UTC since in RFC 3339's other spellings is fine.
    await get(`include=quota_history&${trail()}&quota_since=2026-01-01T00:00:00Z`)
    await get(`include=quota_history&${trail()}&quota_since=2026-01-01t00:00:00.5z`)
  })

  it('GET /storage counts the stored readings', async () => {
    const r = await d.request({ path: '/storage?limit=1' })
    assert.equal(r.status, 200, r.text())
    assert.deepEqual(r.json().quota_readings, { count: total })
  })
})
