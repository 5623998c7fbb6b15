// Reading quota trails (src/client/quota.ts) through the typed client from a daemon that
// records quota (test/fakes/quota-daemon.ts, in front of a real daemon): back as far as the
// limit's window (a day at least, a week at most), at most five pages of 200, the oldest
// readings dropped when capped and the span told; staleness by age and by reset.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { HearthClient } from '../../src/client/client.ts'
import {
  isStale,
  readingsOfAccountInUse,
  readTrail,
  STALE_AFTER_MS,
  trailLabel,
  trailSeconds,
} from '../../src/client/quota.ts'
import type { QuotaReading } from '../../src/schemas/server.ts'
import { trailChart } from '../../src/tui/quota-screen.ts'
import { quotaStatusText } from '../../src/tui/quota-status.ts'
import { FakeQuotaDaemon, reading } from '../fakes/quota-daemon.ts'
import { startDaemon, type TestDaemon } from '../helpers/daemon.ts'

const MIN = 60_000
const HOUR = 60 * MIN
const DAY = 24 * HOUR
const NOW = Date.parse('2026-11-20T12:00:00.000Z')

/** Readings of one limit every `every` ms back from NOW, oldest first. */
function series(count: number, every: number, fields: Partial<QuotaReading>): QuotaReading[] {
  return Array.from({ length: count }, (_, i) =>
    reading({ ...fields, observed: NOW - (count - 1 - i) * every, used_percent: i % 101 }),
  )
}

describe('quota trails', () => {
  let d: TestDaemon
  let fake: FakeQuotaDaemon
  let client: HearthClient
  // A weekly limit polled every 5 minutes for 8 days (2304 rows: more than five pages reach),
  // a 5-hour limit every 30 minutes for 3 days, both of one account, and another account's.
  const weekly = series(2304, 5 * MIN, { limit_id: 'secondary', window_label: '7d', window_seconds: 604_800 })
  const session = series(144, 30 * MIN, { limit_id: 'primary', window_seconds: 18_000 })
  const other = series(10, 30 * MIN, { account: 'b@example.test', limit_id: 'primary' })
  const history = [...weekly, ...session, ...other].sort((a, b) => a.observed_at.localeCompare(b.observed_at))

  before(async () => {
    d = await startDaemon()
    fake = await FakeQuotaDaemon.start(d, [weekly.at(-1)!, session.at(-1)!, other.at(-1)!], history)
    client = HearthClient.fromHome(fake.home)
  })
  after(async () => {
    await fake.close()
    await d.stop()
  })

  it('a window longer than five pages reach is capped: the newest 1000 readings, and the label gives their real span', async () => {
    const t = await readTrail(client, weekly.at(-1)!, NOW)
    assert.equal(t.pages, 5)
    assert.equal(t.capped, true)
    assert.equal(t.readings.length, 1000)
    assert.deepEqual(t.readings, weekly.slice(-1000), 'the newest, oldest first')
    assert.equal(t.since, NOW - 7 * DAY)
    assert.equal(t.spanMs, 999 * 5 * MIN)
    assert.equal(trailLabel(t, NOW), 'last 3d 11h (capped at 1000 readings; window 7d)')
    const asked = fake.historyQueries('secondary')
    assert.equal(asked.length, 5, 'never a sixth page')
    for (const q of asked) {
      assert.equal(q.get('limit'), '200')
      assert.equal(q.get('quota_provider'), 'codex')
      assert.equal(q.get('quota_account'), 'a@example.test')
      assert.equal(q.get('quota_since'), new Date(NOW - 7 * DAY).toISOString())
    }
    assert.equal(asked[0].get('next'), null)
    assert.ok(
      asked.slice(1).every((q) => q.get('next')),
      'each later page carries the continuation',
    )
  })

  it('a short window is read back a day, in one page, not capped', async () => {
    const t = await readTrail(client, session.at(-1)!, NOW)
    assert.equal(t.pages, 1)
    assert.equal(t.capped, false)
    assert.equal(t.since, NOW - DAY)
    assert.deepEqual(t.readings, session.slice(-49), 'observed at or after the start, oldest first')
    assert.equal(trailLabel(t, NOW), 'last 1d')
    assert.ok(t.readings.every((r) => r.account === 'a@example.test' && r.limit_id === 'primary'))
  })

  it('the trail window: the limit window between a day and a week, a day when unknown', () => {
    assert.equal(trailSeconds({ window_seconds: 18_000 }), 86_400)
    assert.equal(trailSeconds({ window_seconds: 3 * 86_400 }), 3 * 86_400)
    assert.equal(trailSeconds({ window_seconds: 30 * 86_400 }), 604_800)
    assert.equal(trailSeconds({ window_seconds: null }), 86_400)
  })

  it('stale: older than 30 minutes, or past its reset', () => {
    const at = (age: number, reset: number | null) => ({
      observed_at: new Date(NOW - age).toISOString(),
      reset_at_ms: reset,
    })
    assert.equal(isStale(at(STALE_AFTER_MS - MIN, NOW + HOUR), NOW), false)
    assert.equal(isStale(at(STALE_AFTER_MS + MIN, NOW + HOUR), NOW), true)
    assert.equal(isStale(at(MIN, NOW - 1), NOW), true, 'past its reset')
    assert.equal(isStale(at(MIN, null), NOW), false)
  })

  it('the status line item: the account in use by binding, selection or the only one; nothing without a reading', () => {
    const latest = [weekly.at(-1)!, session.at(-1)!, other.at(-1)!]
    const account = (id: string, email: string, selected = false) => ({
      id,
      provider: 'chatgpt',
      label: email,
      email,
      plan: null,
      selected,
      limited_until: null,
      expires_at: null,
      refreshable: true,
    })
    const accounts = [account('chatgpt-a', 'a@example.test'), account('chatgpt-b', 'b@example.test', true)]
    const limits = (rs: QuotaReading[]) => rs.map((r) => `${r.account}/${r.limit_id}`).sort()
    assert.deepEqual(limits(readingsOfAccountInUse(latest, 'chatgpt', accounts)), ['b@example.test/primary'])
    assert.deepEqual(limits(readingsOfAccountInUse(latest, 'chatgpt', accounts, 'chatgpt-a')), [
      'a@example.test/primary',
      'a@example.test/secondary',
    ])
    assert.deepEqual(readingsOfAccountInUse(latest, 'openai-compatible', accounts), [])
    assert.deepEqual(readingsOfAccountInUse(latest, 'chatgpt', []), [], 'two accounts read, none known')
    // An API-key profile's readings carry its name as their account, whatever its feed.
    const keyed = { ...session.at(-1)!, provider: 'zai', account: 'glm' }
    assert.deepEqual(readingsOfAccountInUse([...latest, keyed], 'openai-compatible', accounts, null, 'glm'), [
      keyed,
    ])
    assert.deepEqual(
      readingsOfAccountInUse([...latest, keyed], 'openai-compatible', accounts, null, 'other'),
      [],
    )
    // A copilot profile with no account reads on gh: its readings carry the profile's name.
    const gh = (account: string) => ({ ...session.at(-1)!, provider: 'copilot', account })
    assert.deepEqual(readingsOfAccountInUse([gh('cp'), gh('cp2')], 'copilot', [], null, 'cp2'), [gh('cp2')])
    assert.deepEqual(readingsOfAccountInUse([gh('cp'), gh('cp2')], 'copilot', [], null, 'other'), [])
    const fresh = { ...session.at(-1)!, used_percent: 42, observed_at: new Date(NOW - MIN).toISOString() }
    assert.equal(quotaStatusText([fresh], NOW), 'quota 5h 42%')
    assert.equal(
      quotaStatusText([{ ...fresh, observed_at: new Date(NOW - HOUR).toISOString() }], NOW),
      'quota 5h 42% (stale)',
    )
    assert.equal(quotaStatusText([{ ...fresh, used_percent: null }], NOW), undefined)
    assert.equal(quotaStatusText([], NOW), undefined)
  })

  it('the chart: one column per slice of the span, a reading held until the next, empty before the first', () => {
    const rs = [
      { observed_at: new Date(NOW - 2.5 * HOUR).toISOString(), used_percent: 100 },
      { observed_at: new Date(NOW - 0.5 * HOUR).toISOString(), used_percent: 0 },
    ]
    const chart = trailChart(rs, NOW - 4 * HOUR, NOW, 4, 1)
    assert.deepEqual(chart, [' ██▁'])
    const tall = trailChart(
      [{ observed_at: new Date(NOW - 0.5 * HOUR).toISOString(), used_percent: 50 }],
      NOW - 2 * HOUR,
      NOW,
      2,
      2,
    )
    assert.deepEqual(tall, ['  ', ' █'])
  })
})
