// The poller's schedule with the clock and timer driven by hand: cadence, the busy cadence
// (a limit at 80 % or resetting within 15 minutes), backoff doubling to an hour and its
// reset, discovery (new accounts at once, removed ones finishing their poll first), no
// overlap of one account's polls, at most two cores at once, `enabled: false`, settings read every round, the drain.
// Polls are scripted; readings go to the store over migration 14's table.
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeEach, describe, it } from 'node:test'
import type { PolledAccount } from '../../src/quota/accounts.ts'
import {
  MAX_POLLS_AT_ONCE,
  type PollerClock,
  type PollResult,
  QuotaPoller,
  type QuotaSettings,
} from '../../src/quota/poller.ts'
import type { UsageReport } from '../../src/quota/report.ts'
import { QuotaStore } from '../../src/quota/store.ts'
import { type Db, migrate, openDatabase } from '../../src/store/db.ts'

const S = 1000
const MIN = 60 * S

/** A clock whose timers fire only when the test advances it. */
class ManualClock implements PollerClock {
  t = Date.now()
  readonly timers = new Map<number, { at: number; fn: () => void }>()
  #seq = 0
  now = () => this.t
  setTimer(fn: () => void, ms: number) {
    const id = ++this.#seq
    this.timers.set(id, { at: this.t + ms, fn })
    return id
  }
  clearTimer(handle: unknown) {
    this.timers.delete(handle as number)
  }
  /** Moves time on by `ms`, firing due timers in order and letting the polls they start settle. */
  async advance(ms: number) {
    const target = this.t + ms
    for (;;) {
      await settle()
      const next = [...this.timers.entries()].sort((a, b) => a[1].at - b[1].at)[0]
      if (!next || next[1].at > target) break
      this.timers.delete(next[0])
      this.t = Math.max(this.t, next[1].at)
      next[1].fn()
    }
    this.t = target
    await settle()
  }
}

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r))
}

const account = (name: string): PolledAccount => ({
  key: `acct/${name}`,
  feed: 'feed-a',
  label: `${name}@example.test`,
  source: { kind: 'account', provider: 'acct', id: name },
})

const good = (used: number, resetInMs = 5 * 3600 * S, now = 0): PollResult => ({
  kind: 'report',
  report: {
    provider: 'feed-a',
    usage: {
      primary: { usedPercent: used, windowMinutes: 300, resetsAt: new Date(now + resetInMs).toISOString() },
    },
  } as UsageReport,
})
const providerError: PollResult = {
  kind: 'report',
  report: { provider: 'feed-a', usage: null, error: { code: 1, message: 'HTTP 401', kind: 'provider' } },
}
const driverFailure: PollResult = { kind: 'driver_failure', reason: 'the usage core printed nothing' }

interface Pending {
  account: PolledAccount
  signal: AbortSignal
  at: number
  answer: (r: PollResult) => void
}

describe('the quota poller', () => {
  let clock: ManualClock
  let db: Db
  let store: QuotaStore
  let settings: QuotaSettings
  let found: PolledAccount[]
  let polls: Pending[]
  /** How each account's polls answer: a function of the clock, or null to answer by hand. */
  let answer: (a: PolledAccount) => PollResult | null
  let logs: { fields: Record<string, unknown>; message: string }[]
  let healed: { key: string; limits: unknown[] }[]
  let poller: QuotaPoller

  beforeEach(() => {
    clock = new ManualClock()
    db = openDatabase(join(mkdtempSync(join(tmpdir(), 'poller-')), 'state.db'))
    migrate(db)
    store = new QuotaStore(db)
    settings = { enabled: true, pollSeconds: 600, busyPollSeconds: 120 }
    found = [account('ann')]
    polls = []
    answer = () => good(10, 5 * 3600 * S, clock.now())
    logs = []
    healed = []
    poller = new QuotaPoller({
      clock,
      settings: () => ({ ...settings }),
      discover: () => [...found],
      poll: (a, signal) =>
        new Promise((resolve) => {
          polls.push({ account: a, signal, at: clock.now(), answer: resolve })
          const r = answer(a)
          if (r) resolve(r)
        }),
      store,
      heal: async (a, limits) => void healed.push({ key: a.key, limits }),
      log: (_level, fields, message) => void logs.push({ fields, message }),
    })
  })

  const pollTimes = (name = 'ann') =>
    polls.filter((p) => p.account.key === `acct/${name}`).map((p) => (p.at - polls[0].at) / S)
  const rows = () => (db.prepare('SELECT COUNT(*) AS n FROM quota_readings').get() as { n: number }).n

  it('polls at once, then every pollSeconds, with one timer armed', async () => {
    poller.start()
    await clock.advance(0)
    assert.deepEqual(pollTimes(), [0])
    await clock.advance(599 * S)
    assert.deepEqual(pollTimes(), [0])
    assert.equal(clock.timers.size, 1)
    await clock.advance(1 * S)
    assert.deepEqual(pollTimes(), [0, 600])
    await clock.advance(1200 * S)
    assert.deepEqual(pollTimes(), [0, 600, 1200, 1800])
    assert.equal(rows(), 4, 'one reading per limit per poll')
    assert.equal(clock.timers.size, 1)
  })

  it('with a start delay, the first round runs once it has passed', async () => {
    poller.start(500)
    await clock.advance(499)
    assert.equal(polls.length, 0)
    await clock.advance(1)
    assert.equal(polls.length, 1)
  })

  it('polls a busy account every busyPollSeconds: a limit at 80 %', async () => {
    answer = () => good(80, 5 * 3600 * S, clock.now())
    poller.start()
    await clock.advance(360 * S)
    assert.deepEqual(pollTimes(), [0, 120, 240, 360])
  })

  it('polls a busy account every busyPollSeconds: a limit resetting within 15 minutes', async () => {
    answer = () => good(10, 15 * MIN, clock.now())
    poller.start()
    await clock.advance(240 * S)
    assert.deepEqual(pollTimes(), [0, 120, 240])
  })

  it('keeps the ordinary cadence below 80 % and past 15 minutes to the reset', async () => {
    answer = () => good(79.9, 15 * MIN + 1 * S, clock.now())
    poller.start()
    await clock.advance(700 * S)
    assert.deepEqual(pollTimes(), [0, 600])
  })

  it('backs off a failing account by doubling up to an hour; a good poll resets it', async () => {
    let failing = true
    answer = () => (failing ? driverFailure : good(10, 5 * 3600 * S, clock.now()))
    poller.start()
    await clock.advance(0)
    // 0, +1200, +2400, +3600 (capped), +3600
    await clock.advance((1200 + 2400 + 3600 + 3600) * S)
    assert.deepEqual(pollTimes(), [0, 1200, 3600, 7200, 10800])
    assert.equal(rows(), 0, 'a driver failure records nothing')
    assert.equal(logs.length, 1, 'the same failure is logged once')
    assert.equal(logs[0].fields.account, 'ann@example.test')
    assert.equal(logs[0].fields.reason, 'the usage core printed nothing')
    failing = false
    await clock.advance(3600 * S)
    await clock.advance(600 * S)
    assert.deepEqual(pollTimes().slice(-2), [14400, 15000])
  })

  it('a report carrying an error is recorded and backs off', async () => {
    answer = () => providerError
    poller.start()
    await clock.advance(1200 * S)
    assert.deepEqual(pollTimes(), [0, 1200])
    const stored = db.prepare('SELECT limit_id, error FROM quota_readings').all()
    assert.deepEqual(stored, [
      { limit_id: '', error: 'HTTP 401' },
      { limit_id: '', error: 'HTTP 401' },
    ])
    assert.equal(healed.length, 0, 'marks heal only with good readings')
  })

  it('heals limit marks with a good poll’s limits', async () => {
    poller.start()
    await clock.advance(0)
    assert.equal(healed.length, 1)
    assert.deepEqual(Object.keys(healed[0].limits[0] as object).sort(), [
      'label',
      'limitId',
      'resetAtMs',
      'usedPercent',
    ])
  })

  it('discovers accounts on the cadence; a new one polls at once', async () => {
    poller.start()
    await clock.advance(100 * S)
    found = [account('ann'), account('ben')]
    await clock.advance(499 * S)
    assert.deepEqual(pollTimes('ben'), [])
    await clock.advance(1 * S)
    assert.deepEqual(pollTimes('ben'), [600])
    assert.deepEqual(pollTimes('ann'), [0, 600])
  })

  it('an account removed while it is polled finishes its poll, recorded, then is dropped', async () => {
    found = [account('ann'), account('ben')]
    answer = (a) =>
      a.key === 'acct/ann' && clock.now() > polls[0].at ? null : good(10, 5 * 3600 * S, clock.now())
    poller.start()
    await clock.advance(600 * S) // ann's second poll hangs
    const hanging = polls.filter((p) => p.account.key === 'acct/ann').at(-1)!
    assert.equal((hanging.at - polls[0].at) / S, 600)
    found = [account('ben')]
    await clock.advance(600 * S) // discovery: ann is gone but in flight
    assert.deepEqual(
      poller.accounts().map((a) => a.key),
      ['acct/ann', 'acct/ben'],
    )
    const before = rows()
    hanging.answer(good(50, 5 * 3600 * S, clock.now()))
    await clock.advance(0)
    assert.equal(rows(), before + 1, 'its reading is recorded')
    assert.deepEqual(
      poller.accounts().map((a) => a.key),
      ['acct/ben'],
    )
    await clock.advance(3600 * S)
    assert.equal(pollTimes('ann').length, 2, 'never polled again')
  })

  it('never polls one account twice at once', async () => {
    answer = () => null
    poller.start()
    await clock.advance(3 * 3600 * S)
    assert.equal(polls.length, 1)
    polls[0].answer(good(10, 5 * 3600 * S, clock.now()))
    await clock.advance(600 * S)
    assert.equal(polls.length, 2)
  })

  it('runs at most MAX_POLLS_AT_ONCE cores at a time; the others start as those end', async () => {
    const names = ['ann', 'ben', 'cy', 'dee', 'eve']
    found = names.map(account)
    answer = () => null
    poller.start()
    await clock.advance(0)
    assert.equal(MAX_POLLS_AT_ONCE, 2)
    assert.deepEqual(
      polls.map((p) => p.account.key),
      ['acct/ann', 'acct/ben'],
    )
    for (let answered = 0; answered < names.length; answered++) {
      polls[answered].answer(good(10, 5 * 3600 * S, clock.now()))
      await clock.advance(0)
      assert.equal(polls.length, Math.min(names.length, answered + 1 + MAX_POLLS_AT_ONCE))
    }
    assert.deepEqual(
      polls.map((p) => p.account.key),
      names.map((n) => `acct/${n}`),
      'in the order they fell due',
    )
    assert.equal(rows(), names.length)
    await clock.advance(600 * S)
    assert.equal(polls.length, names.length + MAX_POLLS_AT_ONCE, 'the next round starts two again')
  })

  it('enabled: false drops the accounts and polls nothing; readings stay; turned on, it polls at once', async () => {
    poller.start()
    await clock.advance(0)
    settings.enabled = false
    await clock.advance(3 * 3600 * S)
    assert.deepEqual(pollTimes(), [0])
    assert.deepEqual(poller.accounts(), [])
    assert.equal(rows(), 1)
    settings.enabled = true
    await clock.advance(600 * S)
    assert.equal(pollTimes().length, 2)
  })

  it('reads the settings every round', async () => {
    poller.start()
    await clock.advance(0)
    settings.pollSeconds = 60
    await clock.advance(600 * S) // the poll due at 600 s reads 60
    await clock.advance(120 * S)
    assert.deepEqual(pollTimes(), [0, 600, 660, 720])
  })

  it('the drain aborts the poll in flight, records nothing more and arms no timer', async () => {
    answer = () => null
    poller.start()
    await clock.advance(0)
    const stopped = poller.stop()
    assert.equal(polls[0].signal.aborted, true)
    polls[0].answer(good(10))
    await stopped
    assert.equal(rows(), 0)
    assert.equal(clock.timers.size, 0)
    await clock.advance(3600 * S)
    assert.equal(polls.length, 1)
  })
})
