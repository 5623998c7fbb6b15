// The built usage core's `copilot` feed against the fake `copilot_internal/user`: the
// request CodexBar sends (the GitHub token as `token`, its editor headers), the answer
// mapped as CodexBar maps it (premium requests primary, chat secondary, strings read as
// numbers, unlimited and placeholder quotas dropped, the older monthly counts), and its
// failures (401/403 refused, 404 no Copilot, other statuses, bad JSON, no token).
import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, it } from 'node:test'
import { Value } from 'typebox/value'
import { CORE_EXIT, UsageReport } from '../../src/quota/report.ts'
import { FakeUsageEndpoints, ISSUED } from '../fakes/usage-endpoints.ts'
import { runCore, withoutUpdatedAt } from './run-core.ts'

const USAGE = ['usage', '--provider', 'copilot', '--format', 'json']

let fake: FakeUsageEndpoints
before(async () => {
  fake = await FakeUsageEndpoints.start()
})
after(() => fake.close())
beforeEach(() => fake.reset())

const env = (token: string = ISSUED.githubToken) => ({
  COPILOT_API_TOKEN: token,
  HEARTH_COPILOT_GITHUB_URL: fake.url,
})

/** The core's answer to one scripted `copilot_internal/user` body. */
async function answerFor(body: object) {
  fake.script('copilot', { status: 200, body })
  const run = await runCore(USAGE, env())
  assert.ok(Value.Check(UsageReport, run.report as unknown), run.stdout)
  return run
}

const usageOf = (run: Awaited<ReturnType<typeof runCore>>) => withoutUpdatedAt(run.report).usage

function assertFailure(run: Awaited<ReturnType<typeof runCore>>, code: number, message: RegExp) {
  assert.ok(Value.Check(UsageReport, run.report as unknown), run.stdout)
  assert.equal(run.report.provider, 'copilot')
  assert.equal(run.report.usage, null)
  assert.equal(run.report.error.kind, 'provider')
  assert.equal(run.report.error.code, code)
  assert.match(run.report.error.message, message)
  assert.equal(run.code, code)
}

describe('usage core: the copilot feed', () => {
  it('copilot_internal/user with the GitHub token and CodexBar’s headers; premium primary, reset, plan, login', async () => {
    const run = await runCore(USAGE, env())
    assert.equal(run.code, 0, run.stdout)
    assert.ok(Value.Check(UsageReport, run.report as unknown))
    assert.deepEqual(withoutUpdatedAt(run.report), {
      provider: 'copilot',
      account: 'octocat',
      version: null,
      source: 'api',
      status: null,
      usage: {
        primary: { usedPercent: 12.5, resetsAt: '2031-02-01T00:00:00Z' },
        // chat is unlimited on this plan: no window
        secondary: null,
        tertiary: null,
        identity: {
          providerID: 'copilot',
          accountEmail: null,
          accountOrganization: null,
          loginMethod: 'Individual_pro',
        },
        loginMethod: 'Individual_pro',
      },
      error: null,
    })
    const [req] = fake.of('copilot')
    assert.equal(req.method, 'GET')
    assert.equal(req.headers.authorization, `token ${ISSUED.githubToken}`)
    assert.equal(req.headers.accept, 'application/json')
    assert.equal(req.headers['editor-version'], 'vscode/1.96.2')
    assert.equal(req.headers['editor-plugin-version'], 'copilot-chat/0.26.7')
    assert.equal(req.headers['user-agent'], 'GitHubCopilotChat/0.26.7')
    assert.equal(req.headers['x-github-api-version'], '2025-04-01')
  })

  it('numbers that come as strings are read; a percent missing is derived from the counts', async () => {
    const run = await answerFor({
      copilot_plan: 'business',
      quota_reset_date: '2031-03-01T08:30:00Z',
      quota_snapshots: {
        premium_interactions: {
          entitlement: '300',
          remaining: '75',
          percent_remaining: '25',
          unlimited: false,
        },
        chat: { entitlement: '500', remaining: '250', quota_id: 'chat' },
      },
    })
    assert.equal(run.code, 0)
    const usage = usageOf(run)
    assert.deepEqual(usage.primary, { usedPercent: 75, resetsAt: '2031-03-01T08:30:00Z' })
    assert.deepEqual(usage.secondary, { usedPercent: 50, resetsAt: '2031-03-01T08:30:00Z' })
    assert.equal(usage.loginMethod, 'Business')
    assert.equal(run.report.account, null, 'no login in this answer')
  })

  it('unlimited quotas and zero-entitlement placeholders are no windows; the plan is still reported', async () => {
    const unlimited = await answerFor({
      copilot_plan: 'enterprise',
      quota_snapshots: {
        premium_interactions: { entitlement: 0, remaining: 0, percent_remaining: 100, unlimited: true },
        chat: { entitlement: 0, remaining: 0, percent_remaining: 100, unlimited: true },
      },
    })
    assert.equal(unlimited.code, 0)
    assert.equal(usageOf(unlimited).primary, null)
    assert.equal(usageOf(unlimited).secondary, null)
    assert.equal(usageOf(unlimited).loginMethod, 'Enterprise')

    const seat = await answerFor({
      copilot_plan: 'business',
      token_based_billing: true,
      quota_snapshots: {
        premium_interactions: { entitlement: 0, remaining: 0, percent_remaining: 100, quota_id: 'premium' },
      },
    })
    assert.equal(seat.code, 0)
    assert.equal(usageOf(seat).primary, null, 'a 0-of-0 quota is not "0 % used"')

    const chatOnly = await answerFor({
      copilot_plan: 'free',
      quota_snapshots: {
        premium_interactions: { entitlement: 0, remaining: 0, percent_remaining: 100 },
        chat: { entitlement: 50, remaining: 10, percent_remaining: 20 },
      },
    })
    assert.equal(usageOf(chatOnly).primary, null)
    assert.deepEqual(usageOf(chatOnly).secondary, { usedPercent: 80 }, 'chat stays secondary; no reset date')
  })

  it('the older monthly counts stand in; a quota over its entitlement says how far', async () => {
    const counts = await answerFor({
      copilot_plan: 'free',
      monthly_quotas: { chat: '500', completions: 300 },
      limited_user_quotas: { chat: 125, completions: '75' },
    })
    assert.deepEqual(usageOf(counts).primary, { usedPercent: 75 })
    assert.deepEqual(usageOf(counts).secondary, { usedPercent: 75 })

    const over = await answerFor({
      quota_snapshots: { premium_interactions: { entitlement: 300, remaining: -60, percent_remaining: -20 } },
    })
    assert.deepEqual(usageOf(over).primary, { usedPercent: 120, resetDescription: '120% used' })
    assert.equal(usageOf(over).loginMethod, undefined, 'no plan named, none guessed')
  })

  it('snapshots under other names are found by what they name', async () => {
    const run = await answerFor({
      quota_snapshots: {
        code_review: { entitlement: 100, remaining: 40, percent_remaining: 40 },
        chat_messages: { entitlement: 200, remaining: 150, percent_remaining: 75 },
      },
    })
    assert.deepEqual(usageOf(run).primary, { usedPercent: 60 })
    assert.deepEqual(usageOf(run).secondary, { usedPercent: 25 })
  })

  it('an answer with no quota at all is a parse error, exit 3', async () => {
    fake.script('copilot', { status: 200, body: { copilot_plan: 'individual', quota_snapshots: {} } })
    assertFailure(await runCore(USAGE, env()), CORE_EXIT.parse, /No Copilot quota found/)
    fake.script('copilot', { malformed: true })
    assertFailure(await runCore(USAGE, env()), CORE_EXIT.parse, /Could not parse Copilot usage response/)
  })
})

describe('usage core: the copilot feed’s failures', () => {
  it('401: a token GitHub did not issue is refused (sign in again), the token never printed', async () => {
    const run = await runCore(USAGE, env('ghu_notIssuedByTheFake0123456789'))
    assertFailure(run, CORE_EXIT.unexpected, /refused the token .*HTTP 401.*sign in again/)
    assert.doesNotMatch(run.stdout, /notIssuedByTheFake/)
  })

  it('403 is a refusal too; 404 says the account has no Copilot', async () => {
    fake.script('copilot', { status: 403, body: { message: 'Resource not accessible by integration' } })
    assertFailure(await runCore(USAGE, env()), CORE_EXIT.unexpected, /refused the token .*HTTP 403/)
    fake.script('copilot', { status: 404, body: { message: 'Not Found' } })
    assertFailure(
      await runCore(USAGE, env()),
      CORE_EXIT.unexpected,
      /has no Copilot subscription \(HTTP 404\)/,
    )
  })

  it('5xx: the status and the body, a token in it redacted', async () => {
    fake.script('copilot', { status: 502, body: { message: `upstream failed for ${ISSUED.githubToken}` } })
    assertFailure(
      await runCore(USAGE, env()),
      CORE_EXIT.unexpected,
      /Copilot usage API error 502: .*upstream failed for \[redacted\]/,
    )
  })

  it('no token: a report, no call', async () => {
    const run = await runCore(USAGE, { HEARTH_COPILOT_GITHUB_URL: fake.url })
    assertFailure(run, CORE_EXIT.unexpected, /COPILOT_API_TOKEN is not set/)
    assert.equal(fake.requests.length, 0)
  })

  it('HEARTH_COPILOT_HOST names the GitHub the account is on (here a base URL, as a test sign-in stores it)', async () => {
    const run = await runCore(USAGE, { COPILOT_API_TOKEN: ISSUED.githubToken, HEARTH_COPILOT_HOST: fake.url })
    assert.equal(run.code, 0, run.stdout)
    assert.equal(fake.of('copilot').length, 1)
    const odd = await runCore(USAGE, {
      COPILOT_API_TOKEN: ISSUED.githubToken,
      HEARTH_COPILOT_HOST: 'ghe.test/x?y=',
    })
    assertFailure(odd, CORE_EXIT.unexpected, /HEARTH_COPILOT_HOST is not a GitHub host name/)
    assert.equal(fake.requests.length, 1, 'no call for a host that is no host')
  })
})
