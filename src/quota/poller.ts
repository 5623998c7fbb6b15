// The quota poller: each account on its own schedule, one timer for the next due poll.
//
// - Cadence: `pollSeconds` after a good poll, `busyPollSeconds` while any latest limit of
//   the account is at 80 % or more, or resets within 15 minutes. A failed poll (a driver
//   failure, or a report carrying an error) waits twice as long as the one before, from
//   `pollSeconds`, up to an hour; a good poll ends the backoff.
// - Two polls of one account never overlap: an account in flight is not due. At most
//   MAX_POLLS_AT_ONCE cores run at a time (each is a process; the built-in one a Node
//   process): the others wait, longest due first, and start as those end.
// - Discovery (accounts.ts) runs on the ordinary cadence, between polls; new accounts poll at
//   once; an account that disappears while it is polled finishes (its reading recorded),
//   then is dropped.
// - extensions.json `quota` is re-read every round: `enabled: false` drops the account list
//   and polls nothing (readings stay readable); turned on again, discovery runs at once.
// - A poll's readings are recorded in one transaction once the core has answered, so a
//   kill -9 loses none it recorded and records none twice; a start polls every account at
//   once.
// - Idle, it costs one unref'd timer. The drain kills the cores in flight (the driver
//   removes their directories) and records nothing more.
import type { LimitReset } from '../providers/descriptor.ts'
import type { PolledAccount } from './accounts.ts'
import type { DriverResult } from './driver.ts'
import { type ReadingRow, readingsOf } from './readings.ts'

/** The clock and the one timer, injected (tests drive them by hand). */
export interface PollerClock {
  now(): number
  /** Arms a timer (unref'd: it never keeps the daemon alive); returns its handle. */
  setTimer(fn: () => void, ms: number): unknown
  clearTimer(handle: unknown): void
}

export const systemClock: PollerClock = {
  now: Date.now,
  setTimer(fn, ms) {
    const t = setTimeout(fn, ms)
    t.unref()
    return t
  },
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
}

/** extensions.json `quota` (src/settings/groups/extensions.ts). */
export interface QuotaSettings {
  enabled: boolean
  pollSeconds: number
  busyPollSeconds: number
}

/** What the poller needs of the store (src/quota/store.ts's QuotaStore). */
export interface ReadingsStore {
  record(rows: readonly ReadingRow[]): void
  latestOf(provider: string, account: string): readonly ReadingRow[]
}

/** One poll's outcome: a report (the core's, or an auth failure made for it), a driver failure, or the account gone. */
export type PollResult = DriverResult | { kind: 'gone' }

export interface PollerDeps {
  clock: PollerClock
  /** Re-read every round. */
  settings: () => QuotaSettings
  /** The accounts now; a throw keeps the list as it was. */
  discover: () => PolledAccount[]
  /** Polls one account: its credential, the core. Never records. */
  poll: (account: PolledAccount, signal: AbortSignal) => Promise<PollResult>
  store: ReadingsStore
  /** After a good poll's readings are recorded: the account's limit marks healed. */
  heal?: (account: PolledAccount, limits: LimitReset[]) => Promise<void>
  log: (level: 'warn' | 'info', fields: Record<string, unknown>, message: string) => void
}

/** The longest a failing account waits. */
export const MAX_BACKOFF_MS = 3_600_000
/** The longest delay a timer takes (a longer one fires at once); the round re-arms. */
const MAX_TIMER_MS = 2 ** 31 - 1
/** Cores running at once: a start with many accounts polls them a few at a time. */
export const MAX_POLLS_AT_ONCE = 2
const BUSY_PERCENT = 80
const BUSY_RESET_MS = 15 * 60_000

interface Entry {
  account: PolledAccount
  dueAt: number
  /** Consecutive failed polls. */
  failures: number
  inFlight: boolean
  /** Gone from discovery while in flight: dropped once its poll ends. */
  gone: boolean
  /** The driver failure last logged (logged again only when it changes). */
  logged: string | null
}

export class QuotaPoller {
  readonly #d: PollerDeps
  readonly #entries = new Map<string, Entry>()
  readonly #inFlight = new Set<Promise<void>>()
  readonly #stop = new AbortController()
  #timer: unknown = null
  #timerAt = Number.POSITIVE_INFINITY
  #nextDiscovery = Number.NEGATIVE_INFINITY
  #enabled = true

  constructor(d: PollerDeps) {
    this.#d = d
  }

  /** The first round now, or after `delayMs` (the daemon lets its start-up finish first). */
  start(delayMs = 0): void {
    if (delayMs > 0) this.#arm(this.#d.clock.now() + delayMs)
    else this.#round()
  }

  /** The drain: no more polls; the cores in flight are killed. Resolves once they have ended. */
  async stop(): Promise<void> {
    this.#stop.abort()
    this.#disarm()
    await Promise.allSettled([...this.#inFlight])
  }

  /** The accounts polled now (for tests and logs). */
  accounts(): PolledAccount[] {
    return [...this.#entries.values()].map((e) => e.account)
  }

  /** One round: settings, discovery when due, the polls that are due, the next timer. */
  #round(): void {
    if (this.#stop.signal.aborted) return
    const now = this.#d.clock.now()
    const s = this.#d.settings()
    const period = Math.max(1, s.pollSeconds) * 1000
    if (!s.enabled) {
      this.#enabled = false
      for (const e of this.#entries.values()) if (e.inFlight) e.gone = true
      for (const [key, e] of this.#entries) if (!e.inFlight) this.#entries.delete(key)
      this.#arm(now + period) // to read the settings again
      return
    }
    if (!this.#enabled) this.#nextDiscovery = Number.NEGATIVE_INFINITY // turned on again
    this.#enabled = true
    if (now >= this.#nextDiscovery) {
      this.#discover(now)
      this.#nextDiscovery = now + period
    }
    this.#launchDue(now)
    this.#armNext()
  }

  /** The due accounts, longest due first, while fewer than MAX_POLLS_AT_ONCE polls run. */
  #launchDue(now: number): void {
    const due = [...this.#entries.values()]
      .filter((e) => !e.inFlight && e.dueAt <= now)
      .sort((a, b) => a.dueAt - b.dueAt)
    for (const e of due) {
      if (this.#inFlight.size >= MAX_POLLS_AT_ONCE) return
      this.#launch(e)
    }
  }

  #discover(now: number): void {
    let found: PolledAccount[]
    try {
      found = this.#d.discover()
    } catch (err) {
      this.#d.log('warn', { err: String(err) }, 'quota accounts could not be read')
      return
    }
    const keys = new Set(found.map((a) => a.key))
    for (const [key, e] of this.#entries) {
      if (keys.has(key)) continue
      if (e.inFlight) e.gone = true
      else this.#entries.delete(key)
    }
    for (const account of found) {
      const e = this.#entries.get(account.key)
      if (e) {
        e.account = account
        e.gone = false
      } else
        this.#entries.set(account.key, {
          account,
          dueAt: now,
          failures: 0,
          inFlight: false,
          gone: false,
          logged: null,
        })
    }
  }

  #launch(e: Entry): void {
    e.inFlight = true
    const p = this.#pollOne(e).finally(() => {
      this.#inFlight.delete(p)
      e.inFlight = false
      if (e.gone) this.#entries.delete(e.account.key)
      this.#armNext()
    })
    this.#inFlight.add(p)
  }

  async #pollOne(e: Entry): Promise<void> {
    const { account } = e
    let result: PollResult
    try {
      result = await this.#d.poll(account, this.#stop.signal)
    } catch (err) {
      result = { kind: 'driver_failure', reason: `the poll failed: ${String(err)}` }
    }
    if (this.#stop.signal.aborted) return // the drain: nothing more is recorded
    const now = this.#d.clock.now()
    if (result.kind === 'gone') {
      e.gone = true
      return
    }
    if (result.kind === 'driver_failure') {
      if (e.logged !== result.reason)
        this.#d.log(
          'warn',
          { account: account.label, provider: account.feed, reason: result.reason },
          'quota poll failed',
        )
      e.logged = result.reason
      this.#reschedule(e, now, false)
      return
    }
    e.logged = null
    const rows = readingsOf(account.label, result.report, now)
    this.#d.store.record(rows)
    const good = !result.report.error
    if (good && this.#d.heal) {
      const limits = rows
        .filter((r) => r.limit_id !== '')
        .map((r) => ({
          limitId: r.limit_id,
          label: r.limit_label,
          resetAtMs: r.reset_at_ms,
          usedPercent: r.used_percent,
        }))
      await this.#d
        .heal(account, limits)
        .catch((err) =>
          this.#d.log('warn', { account: account.label, err: String(err) }, 'quota limit marks not healed'),
        )
    }
    this.#reschedule(e, now, good)
  }

  /** The next due time: the cadence after a good poll, the doubled backoff after a failed one. */
  #reschedule(e: Entry, now: number, good: boolean): void {
    const s = this.#d.settings()
    const period = Math.max(1, s.pollSeconds) * 1000
    if (good) {
      e.failures = 0
      const busy = this.#busy(e.account, now)
      e.dueAt = now + (busy ? Math.max(1, s.busyPollSeconds) * 1000 : period)
      return
    }
    e.failures += 1
    e.dueAt = now + Math.min(period * 2 ** e.failures, Math.max(MAX_BACKOFF_MS, period))
  }

  /** Any latest limit at 80 % or more, or resetting within 15 minutes. */
  #busy(account: PolledAccount, now: number): boolean {
    return this.#d.store
      .latestOf(account.feed, account.label)
      .some(
        (r) =>
          (r.used_percent !== null && r.used_percent >= BUSY_PERCENT) ||
          (r.reset_at_ms !== null && r.reset_at_ms > now && r.reset_at_ms - now <= BUSY_RESET_MS),
      )
  }

  /** Arms the one timer for the earliest due poll or discovery (polls waiting for a free slot: when one frees). */
  #armNext(): void {
    if (this.#stop.signal.aborted || !this.#enabled) return
    let next = this.#nextDiscovery
    const slotFree = this.#inFlight.size < MAX_POLLS_AT_ONCE
    const now = this.#d.clock.now()
    for (const e of this.#entries.values())
      if (!e.inFlight && e.dueAt < next && (slotFree || e.dueAt > now)) next = e.dueAt
    this.#arm(next)
  }

  #arm(at: number): void {
    if (this.#timer !== null && at === this.#timerAt) return
    this.#disarm()
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, at - this.#d.clock.now()))
    this.#timerAt = at
    this.#timer = this.#d.clock.setTimer(() => {
      this.#timer = null
      this.#timerAt = Number.POSITIVE_INFINITY
      this.#round()
    }, delay)
  }

  #disarm(): void {
    if (this.#timer !== null) this.#d.clock.clearTimer(this.#timer)
    this.#timer = null
    this.#timerAt = Number.POSITIVE_INFINITY
  }
}
