// Quota: each account's limits with the latest reading (used percent, window, reset, stale
// marked) and a chart of the limit's trail over its window.
import { useEffect, useState } from 'preact/hooks'
import type { QuotaReading } from '../../../../schemas/server.ts'
import type { ApiClient } from '../../api/client.ts'
import { isStale, readTrail, resetsOf, spanText, type Trail } from '../../api/shared-views.ts'
import { problemText } from '../../ui/problem-text.ts'
import type { ChartInput } from './quota-chart.tsx'
import { type AccountLimits, byAccount } from './quota-readings.ts'

type ChartModule = typeof import('./quota-chart.tsx')
let chartModule: Promise<ChartModule> | undefined

/** The chart, once its module (and uPlot) is loaded: the first chart loads it for all. */
function LazyChart({ input }: { input: ChartInput }) {
  const [mod, setMod] = useState<ChartModule>()
  useEffect(() => {
    chartModule ??= import('./quota-chart.tsx')
    void chartModule.then(setMod)
  }, [])
  return mod ? <mod.QuotaChart input={input} /> : <div class="quota-chart" />
}

function limitName(r: QuotaReading): string {
  return [r.limit_label ?? r.limit_id, r.window_label].filter(Boolean).join(' · ')
}

function chartInput(r: QuotaReading, trail: Trail, now: number): ChartInput {
  const rows = trail.readings.length ? trail.readings : [r]
  return {
    times: rows.map((x) => Date.parse(x.observed_at) / 1000),
    percents: rows.map((x) => x.used_percent),
    resets: resetsOf(trail, r),
    from: Math.min(trail.since, Date.parse(rows[0].observed_at)) / 1000,
    to: now / 1000,
    stale: isStale(r, now),
    label: limitName(r),
  }
}

function Limit({ client, reading, now }: { client: ApiClient; reading: QuotaReading; now: number }) {
  const [trail, setTrail] = useState<Trail>()
  const [error, setError] = useState<string>()
  useEffect(() => {
    readTrail(client, reading, now).then(setTrail, (err) => setError(problemText(err)))
  }, [reading.observed_at])
  const stale = isStale(reading, now)
  return (
    <section class="quota-limit" data-limit={reading.limit_id} data-stale={stale ? 'true' : 'false'}>
      <h4>
        {limitName(reading)}{' '}
        <strong class="percent">{reading.used_percent === null ? '?' : `${reading.used_percent}%`}</strong>
        {stale ? <span class="badge stale">stale</span> : null}
      </h4>
      <p class="note">
        {reading.reset_at_ms !== null
          ? reading.reset_at_ms > now
            ? `resets in ${spanText(reading.reset_at_ms - now)}`
            : 'its reset has passed'
          : 'no reset known'}
        {` · read ${spanText(now - Date.parse(reading.observed_at))} ago`}
        {trail
          ? ` · ${trail.readings.length} readings over ${spanText(now - trail.since)}${trail.capped ? ' (capped: the oldest are left out)' : ''}`
          : ''}
      </p>
      {error ? <p class="error-text">{error}</p> : null}
      {trail ? <LazyChart input={chartInput(reading, trail, now)} /> : <p class="note">Reading the trail…</p>}
    </section>
  )
}

function Account({ client, a, now }: { client: ApiClient; a: AccountLimits; now: number }) {
  return (
    <section class="quota-account" data-account={a.account}>
      <h3>
        {a.provider} · {a.account} {a.plan ? <span class="badge">{a.plan}</span> : null}
      </h3>
      {a.failure && a.limits.length === 0 ? (
        <p class="error-text">
          Poll failed {spanText(now - Date.parse(a.failure.observed_at))} ago: {a.failure.error}
        </p>
      ) : null}
      {a.limits.map((r) => (
        <Limit key={r.limit_id} client={client} reading={r} now={now} />
      ))}
    </section>
  )
}

export function QuotaScreen({ client }: { client: ApiClient }) {
  const [readings, setReadings] = useState<QuotaReading[] | null>()
  const [error, setError] = useState<string>()
  const [now, setNow] = useState(Date.now())
  const read = () =>
    client.call('server.get').then(
      (r) => {
        setNow(Date.now())
        setReadings(r.body.quota)
      },
      (err) => setError(problemText(err)),
    )
  useEffect(() => {
    void read()
    // The poller records a reading every few minutes: read the latest again each minute.
    const timer = setInterval(() => void read(), 60_000)
    return () => clearInterval(timer)
  }, [])
  return (
    <main class="screen quota-screen" data-loaded={readings !== undefined ? 'true' : undefined}>
      <h2>Quota</h2>
      <p class="note">
        Used percent of each limit over its window; dashed lines are the window's resets, a shaded end is a
        stale reading (older than 30 minutes or past its reset).
      </p>
      {error ? <p class="error-text">{error}</p> : null}
      {readings === null ? (
        <p class="note">
          No reading yet: sign in to a provider with a usage feed (Sign-in), or check that quota polling is on
          (Settings, extensions).
        </p>
      ) : null}
      {readings
        ? byAccount(readings).map((a) => <Account key={a.key} client={client} a={a} now={now} />)
        : null}
    </main>
  )
}
