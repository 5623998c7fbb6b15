// readingsOf: a usage report (CodexBar's CLI JSON) as stored rows, one per limit, raw.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Value } from 'typebox/value'
import { type ReadingRow, readingsOf, resetOf, windowLabelOf } from '../../src/quota/readings.ts'
import { UsageReport } from '../../src/quota/report.ts'

const AT = Date.parse('2025-12-04T15:00:00.000Z')

/** CodexBar's `usage --provider codex --format json` as its docs/cli.md shows it. */
function codexSample(): UsageReport {
  return JSON.parse(`{"provider":"codex","account":"me@example.test","version":"0.6.0","source":"oauth",
    "status":{"indicator":"none","description":"Operational","updatedAt":"2025-12-04T14:59:00Z","url":"https://status.openai.com"},
    "usage":{"primary":{"usedPercent":28,"windowMinutes":300,"resetsAt":"2025-12-04T19:15:00Z","resetDescription":null},
      "secondary":{"usedPercent":59,"windowMinutes":10080,"resetsAt":"2025-12-08T00:00:00Z"},"tertiary":null,
      "extraRateWindows":[],"details":[{"title":"Credits","rows":[{"label":"Remaining","value":"112.4"}]}],
      "updatedAt":"2025-12-04T14:59:30Z",
      "identity":{"providerID":"codex","accountEmail":"me@example.test","accountOrganization":null,"loginMethod":"plus"},
      "accountEmail":"me@example.test","loginMethod":"plus"},
    "pace":{"primary":{"stage":"onTrack","deltaPercent":-3,"expectedUsedPercent":31,"summary":"On track"}},
    "credits":{"remaining":112.4,"updatedAt":"2025-12-04T14:59:30Z"},"antigravityPlanInfo":null,"openaiDashboard":null,
    "diagnostic":null,"error":null}`)
}

/** A provider failure as CodexBar reports it (CLIErrorReporting): an error and no usage. */
function failureSample(): UsageReport {
  return JSON.parse(`{"provider":"claude","account":null,"version":null,"source":"oauth","status":null,"usage":null,
    "credits":null,"antigravityPlanInfo":null,"openaiDashboard":null,
    "error":{"code":1,"message":"Claude usage request failed: 401 Unauthorized","kind":"provider"}}`)
}

describe('readingsOf', () => {
  it('the CodexBar codex sample: one row per fixed window it carries, raw', () => {
    const report = codexSample()
    assert.ok(Value.Check(UsageReport, report), 'the sample is a report')
    const rows = readingsOf('me@example.test', report, AT)
    const common = {
      account: 'me@example.test',
      provider: 'codex',
      plan: 'plus',
      scope: null,
      status: 'none',
      error: null,
      observed_at_ms: AT,
      source: 'poll' as const,
    }
    assert.deepEqual(rows, [
      {
        ...common,
        limit_id: 'primary',
        limit_label: 'Session',
        used_percent: 28,
        window_label: '5h',
        window_seconds: 18_000,
        reset_at_ms: Date.parse('2025-12-04T19:15:00Z'),
      },
      {
        ...common,
        limit_id: 'secondary',
        limit_label: 'Weekly',
        used_percent: 59,
        window_label: '7d',
        window_seconds: 604_800,
        reset_at_ms: Date.parse('2025-12-08T00:00:00Z'),
      },
    ] satisfies ReadingRow[])
  })

  it('extra windows: their id and title; usageKnown false leaves the percent null, never 0', () => {
    const report = codexSample()
    report.usage!.tertiary = { usedPercent: 12, windowMinutes: 10080, resetsAt: null }
    report.usage!.extraRateWindows = [
      { id: 'gpt-5-codex-mini', title: 'Codex mini', window: { usedPercent: 40, windowMinutes: 300 } },
      { id: 'spark', title: 'Spark', window: { usedPercent: 0, windowMinutes: 1440 }, usageKnown: false },
      { id: 'known', title: 'Known', window: { usedPercent: 0 }, usageKnown: true },
    ]
    const rows = readingsOf('acct', report, AT)
    assert.deepEqual(
      rows.map((r) => [r.limit_id, r.limit_label, r.used_percent, r.window_label, r.window_seconds]),
      [
        ['primary', 'Session', 28, '5h', 18_000],
        ['secondary', 'Weekly', 59, '7d', 604_800],
        ['tertiary', null, 12, '7d', 604_800],
        ['gpt-5-codex-mini', 'Codex mini', 40, '5h', 18_000],
        ['spark', 'Spark', null, '1d', 86_400],
        ['known', 'Known', 0, null, null],
      ],
    )
    assert.equal(rows[2].reset_at_ms, null, 'a window without a reset time')
  })

  it('the plan from usage.loginMethod, else identity.loginMethod; scope is the identity organization', () => {
    const report = codexSample()
    report.usage!.loginMethod = null
    report.usage!.identity = { loginMethod: 'pro', accountOrganization: 'Team Space' }
    const [row] = readingsOf('acct', report, AT)
    assert.equal(row.plan, 'pro')
    assert.equal(row.scope, 'Team Space')
    report.usage!.identity = null
    assert.equal(readingsOf('acct', report, AT)[0].plan, null)
    report.usage!.loginMethod = 'max'
    assert.equal(readingsOf('acct', report, AT)[0].plan, 'max')
  })

  it('labels the fixed windows as the feed names them; a feed not known leaves them unlabelled', () => {
    const window = { usedPercent: 1, windowMinutes: 300 }
    const labels = (provider: string) =>
      readingsOf('a', { provider, usage: { primary: window, secondary: window, tertiary: window } }, AT).map(
        (r) => r.limit_label,
      )
    assert.deepEqual(labels('claude'), ['Session', 'Weekly', 'Sonnet'])
    assert.deepEqual(labels('antigravity'), ['Gemini Models', 'Claude and GPT', null])
    assert.deepEqual(labels('somefeed'), [null, null, null])
  })

  it('a failure with no limits is one row under limit id "" carrying the error', () => {
    const rows = readingsOf('me@example.test', failureSample(), AT)
    assert.deepEqual(rows, [
      {
        account: 'me@example.test',
        provider: 'claude',
        plan: null,
        limit_id: '',
        limit_label: null,
        used_percent: null,
        window_label: null,
        window_seconds: null,
        reset_at_ms: null,
        scope: null,
        status: null,
        error: 'Claude usage request failed: 401 Unauthorized',
        observed_at_ms: AT,
        source: 'poll',
      },
    ] satisfies ReadingRow[])
  })

  it('an error beside limits: a row per limit, each carrying the error, and no "" row', () => {
    const report = codexSample()
    report.error = { code: 1, message: 'partial: weekly endpoint timed out', kind: 'provider' }
    const rows = readingsOf('acct', report, AT)
    assert.deepEqual(
      rows.map((r) => [r.limit_id, r.used_percent, r.error]),
      [
        ['primary', 28, 'partial: weekly endpoint timed out'],
        ['secondary', 59, 'partial: weekly endpoint timed out'],
      ],
    )
  })

  it('a report with neither limits nor an error gives no rows', () => {
    assert.deepEqual(readingsOf('a', { provider: 'codex', usage: null, error: null }, AT), [])
    assert.deepEqual(readingsOf('a', { provider: 'codex', usage: { extraRateWindows: [] } }, AT), [])
  })

  it('the status indicator as reported; percents as reported, over 100 and 0 included', () => {
    const report = codexSample()
    report.status = { indicator: 'major', description: 'Partial outage' }
    report.usage!.primary!.usedPercent = 104.5
    report.usage!.secondary!.usedPercent = 0
    const rows = readingsOf('a', report, AT)
    assert.deepEqual(
      rows.map((r) => [r.status, r.used_percent]),
      [
        ['major', 104.5],
        ['major', 0],
      ],
    )
    report.status = undefined
    assert.equal(readingsOf('a', report, AT)[0].status, null)
  })

  it('window labels: the largest whole unit of the minutes', () => {
    assert.equal(windowLabelOf(300), '5h')
    assert.equal(windowLabelOf(10080), '7d')
    assert.equal(windowLabelOf(1440), '1d')
    assert.equal(windowLabelOf(2880), '2d')
    assert.equal(windowLabelOf(90), '90m')
    assert.equal(windowLabelOf(1500), '25h')
    assert.equal(windowLabelOf(0), '0m')
  })

  it('reset times: ISO 8601 with a zone to epoch ms; anything else stays null', () => {
    assert.equal(resetOf('2025-12-04T19:15:00Z'), Date.UTC(2025, 11, 4, 19, 15))
    assert.equal(resetOf('2025-12-04T19:15:00.250Z'), Date.UTC(2025, 11, 4, 19, 15, 0, 250))
    assert.equal(resetOf('2025-12-04T20:15:00+01:00'), Date.UTC(2025, 11, 4, 19, 15))
    assert.equal(resetOf('2025-12-04T19:15Z'), Date.UTC(2025, 11, 4, 19, 15))
    for (const bad of [
      'soon',
      '',
      'Dec 4 2025',
      '2025-12-04',
      '2025-12-04T19:15:00',
      '2025-13-04T19:15:00Z',
      '1764875700000',
      null,
      undefined,
    ])
      assert.equal(resetOf(bad), null, String(bad))
    const report = codexSample()
    report.usage!.primary!.resetsAt = 'in 3 hours'
    assert.equal(readingsOf('a', report, AT)[0].reset_at_ms, null)
  })
})
