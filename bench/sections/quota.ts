// The quota read path: GET /server with 200 latest readings, and with a 200-row history page
// of one limit's trail (first page and a page further on), against a plain GET /server (a
// home with no readings) in the same run. Each is loaded on one keep-alive connection; the
// four run in turn, twice, so that the machine's load is shared alike. The home is seeded
// through the store before its daemon starts: 40 accounts × 5 limits, a week of readings of
// one limit at the 2-minute busy cadence (5,040), and a day of every other limit at 10 minutes.
import { join } from 'node:path'
import autocannon from 'autocannon'
import type { ReadingRow } from '../../src/quota/readings.ts'
import { QuotaStore } from '../../src/quota/store.ts'
import { migrate, openDatabase } from '../../src/store/db.ts'
import { type BenchDaemon, ms, percentile, type Row, type Section, spawnDaemon, tempHome } from '../lib.ts'
import { quotaIdleRows } from './quota-idle.ts'

const DURATION_S = 3
const ROUNDS = 2
const MIN = 60_000
const LIMITS = ['primary', 'secondary', 'tertiary', 'model-a', 'model-b']
const ACCOUNTS = 40
const TRAIL_ACCOUNT = 'acct00@example.test'

function row(account: string, limit: string, observed: number, percent: number): ReadingRow {
  return {
    account,
    provider: 'codex',
    plan: 'plus',
    limit_id: limit,
    limit_label: limit === 'primary' ? 'Session' : limit,
    used_percent: percent,
    window_label: '5h',
    window_seconds: 18_000,
    reset_at_ms: observed + 3 * 3_600_000,
    scope: null,
    status: 'none',
    error: null,
    observed_at_ms: observed,
    source: 'poll',
  }
}

/** A home whose state.db holds the readings above, in poll order. */
function seededHome(now: number): { home: string; rows: number } {
  const home = tempHome('hearth-bench-quota-')
  const db = openDatabase(join(home, 'state.db'))
  migrate(db)
  const store = new QuotaStore(db, { now: () => now })
  let rows = 0
  const record = (polls: ReadingRow[][]) =>
    db.transaction(() => {
      for (const p of polls) store.record(p)
      rows += polls.reduce((n, p) => n + p.length, 0)
    })()
  const week = 7 * 24 * 60
  record(
    Array.from({ length: week / 2 }, (_, i) => [
      row(TRAIL_ACCOUNT, 'primary', now - (week - 2 * i) * MIN, i % 100),
    ]),
  )
  const day = 24 * 60
  const polls: ReadingRow[][] = []
  for (let m = day; m >= 0; m -= 10) {
    for (let a = 0; a < ACCOUNTS; a++) {
      const account = `acct${String(a).padStart(2, '0')}@example.test`
      polls.push(
        LIMITS.filter((l) => a > 0 || l !== 'primary').map((l) => row(account, l, now - m * MIN, m % 100)),
      )
    }
  }
  record(polls)
  db.close()
  return { home, rows }
}

function load(d: BenchDaemon, path: string, duration: number, times: number[]): Promise<void> {
  const headers = { authorization: `Bearer ${d.token}`, host: new URL(d.url).host }
  return new Promise((resolve, reject) => {
    const instance = autocannon({ url: `${d.url}${path}`, connections: 1, duration, headers }, (err, r) => {
      if (err) return reject(err)
      if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0)
        return reject(new Error(`${path}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`))
      resolve()
    })
    instance.on('response', (_c: unknown, _s: number, _b: number, time: number) => {
      times.push(time)
    })
  })
}

async function getJson(d: BenchDaemon, path: string): Promise<any> {
  const res = await fetch(`${d.url}${path}`, { headers: { authorization: `Bearer ${d.token}` } })
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`)
  return res.json()
}

const readPath: Section = {
  name: 'quota',
  description: `GET /server with quota readings vs without, 1 connection, ${ROUNDS}×${DURATION_S} s each`,
  async run(): Promise<Row[]> {
    const now = Date.now()
    const seeded = seededHome(now)
    const plain = await spawnDaemon()
    const full = await spawnDaemon(seeded.home)
    try {
      const latest = (await getJson(full, '/server')).quota
      if (latest?.length !== 200) throw new Error(`expected 200 latest readings, got ${latest?.length}`)
      const since = new Date(now - 7 * 24 * 60 * MIN).toISOString()
      const trail = `/server?include=quota_history&quota_provider=codex&quota_account=${encodeURIComponent(TRAIL_ACCOUNT)}&quota_limit=primary&quota_since=${since}&limit=200`
      let page = await getJson(full, trail)
      for (let i = 0; i < 3; i++)
        page = await getJson(full, `${trail}&next=${encodeURIComponent(page.quota_history.next)}`)
      const later = `${trail}&next=${encodeURIComponent(page.quota_history.next)}`
      if ((await getJson(full, later)).quota_history.items.length !== 200) throw new Error('a short page')
      const cases: [string, BenchDaemon, string][] = [
        ['plain (no readings)', plain, '/server'],
        ['200 latest', full, '/server'],
        ['200 latest + 200-row history page', full, trail],
        ['200 latest + 200-row page 5', full, later],
      ]
      const times = cases.map(() => [] as number[])
      for (const [, d, path] of cases) await load(d, path, 1, []) // warm-up
      for (let r = 0; r < ROUNDS; r++)
        for (const [i, [, d, path]] of cases.entries()) await load(d, path, DURATION_S, times[i])
      const base = percentile(times[0], 99)
      const rows: Row[] = [{ figure: 'quota readings stored', measured: String(seeded.rows) }]
      for (const [i, [name]] of cases.entries()) {
        const p99 = percentile(times[i], 99)
        rows.push({ figure: `GET /server ${name} p50`, measured: ms(percentile(times[i], 50), 3) })
        rows.push(
          i === 0
            ? { figure: `GET /server ${name} p99`, measured: ms(p99, 3) }
            : {
                figure: `GET /server ${name} p99`,
                measured: `${ms(p99, 3)} (${(p99 / base).toFixed(2)}×)`,
                target: '≤ 2× plain',
                ok: p99 <= 2 * base,
              },
        )
      }
      return rows
    } finally {
      await Promise.all([plain.stop(), full.stop()])
    }
  },
}

/** Both parts: the read path, then the poller at rest. */
export const quotaSection: Section = {
  name: 'quota',
  description: `${readPath.description}; an idle daemon with 50 polled accounts vs none`,
  async run(): Promise<Row[]> {
    return [...(await readPath.run()), ...(await quotaIdleRows())]
  },
}
