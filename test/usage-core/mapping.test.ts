// Each feed of the built usage core against the fake vendor endpoints: the report it prints
// for the vendor's real response shape, mapped as CodexBar maps it.
import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, it } from 'node:test'
import { Value } from 'typebox/value'
import { FAILURE } from '../../src/providers/shared/usage-fetch.ts'
import { CORE_EXIT, UsageReport } from '../../src/quota/report.ts'
import { FakeUsageEndpoints, ISSUED } from '../fakes/usage-endpoints.ts'
import { codexHome, iso, runCore, withoutUpdatedAt } from './run-core.ts'

const USAGE = (feed: string) => ['usage', '--provider', feed, '--format', 'json']
const identity = (providerID: string, accountEmail: string | null, loginMethod: string | null) => ({
  identity: { providerID, accountEmail, accountOrganization: null, loginMethod },
  ...(accountEmail ? { accountEmail } : {}),
  ...(loginMethod ? { loginMethod } : {}),
})
const report = (provider: string, source: string, usage: object) => ({
  provider,
  account: null,
  version: null,
  source,
  status: null,
  usage,
  error: null,
})
/** An unsigned JWT whose payload is `claims` (the core reads claims, never the signature). */
const jwt = (claims: object) => `e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2ln`

let fake: FakeUsageEndpoints
before(async () => {
  fake = await FakeUsageEndpoints.start()
})
after(() => fake.close())
beforeEach(() => fake.reset())

describe('usage core: feed mappings', () => {
  it('states the exit codes of src/quota/report.ts', () => {
    assert.deepEqual(FAILURE, {
      failed: CORE_EXIT.unexpected,
      parse: CORE_EXIT.parse,
      timeout: CORE_EXIT.timeout,
    })
  })

  it('codex: wham/usage with the bearer and the account header, windows and Spark limits', async () => {
    const env = {
      CODEX_HOME: codexHome({ access_token: ISSUED.chatgptToken, account_id: ISSUED.chatgptAccount }),
      HEARTH_CHATGPT_USAGE_URL: `${fake.url}/backend-api`,
    }
    const run = await runCore(USAGE('codex'), env)
    assert.equal(run.code, 0)
    assert.ok(Value.Check(UsageReport, run.report as unknown))
    assert.deepEqual(
      withoutUpdatedAt(run.report),
      report('codex', 'oauth', {
        primary: { usedPercent: 22, windowMinutes: 300, resetsAt: iso(1766948068) },
        secondary: { usedPercent: 43, windowMinutes: 10080, resetsAt: iso(1767407914) },
        tertiary: null,
        extraRateWindows: [
          {
            id: 'codex-spark',
            title: 'Codex Spark 5-hour',
            window: { usedPercent: 30, windowMinutes: 300, resetsAt: iso(1766948068) },
          },
          {
            id: 'codex-spark-weekly',
            title: 'Codex Spark Weekly',
            window: { usedPercent: 100, windowMinutes: 10080, resetsAt: iso(1767407914) },
          },
          {
            id: 'codex-codex-review',
            title: 'Codex Review',
            window: { usedPercent: 5, windowMinutes: 10080, resetsAt: iso(1767407914) },
          },
        ],
        ...identity('codex', null, 'pro'),
      }),
    )
    const [req] = fake.of('codex')
    assert.equal(req.headers.authorization, `Bearer ${ISSUED.chatgptToken}`)
    assert.equal(req.headers['chatgpt-account-id'], ISSUED.chatgptAccount)
  })

  it('codex: the e-mail from an id token in auth.json, a weekly-only answer as the secondary window', async () => {
    fake.script('codex', {
      status: 200,
      body: {
        plan_type: null,
        rate_limit: {
          primary_window: { used_percent: 7, reset_at: 1767407914, limit_window_seconds: 604800 },
          secondary_window: null,
        },
      },
    })
    const idToken = jwt({
      email: 'person@example.com',
      'https://api.openai.com/auth': { chatgpt_plan_type: 'plus', chatgpt_account_id: ISSUED.chatgptAccount },
    })
    const env = {
      CODEX_HOME: codexHome({ access_token: ISSUED.chatgptToken, id_token: idToken }),
      HEARTH_CHATGPT_USAGE_URL: `${fake.url}/backend-api`,
    }
    const run = await runCore(USAGE('codex'), env)
    assert.equal(run.code, 0, run.stdout)
    assert.deepEqual(withoutUpdatedAt(run.report).usage, {
      primary: null,
      secondary: { usedPercent: 7, windowMinutes: 10080, resetsAt: iso(1767407914) },
      tertiary: null,
      ...identity('codex', 'person@example.com', 'plus'),
    })
    assert.equal(
      fake.of('codex')[0].headers['chatgpt-account-id'],
      ISSUED.chatgptAccount,
      'the account id from the id token',
    )
  })

  it('claude: usage with the OAuth beta, scoped weekly limits, routines, e-mail and plan from the profile', async () => {
    const env = {
      CODEXBAR_CLAUDE_OAUTH_TOKEN: ISSUED.claudeToken,
      CODEXBAR_CLAUDE_OAUTH_SCOPES: 'user:profile',
      HEARTH_CLAUDE_USAGE_URL: fake.url,
    }
    const run = await runCore(USAGE('claude'), env)
    assert.equal(run.code, 0, run.stdout)
    const weekEnd = '2025-12-31T00:00:00Z'
    assert.deepEqual(
      withoutUpdatedAt(run.report),
      report('claude', 'oauth', {
        primary: { usedPercent: 12.5, windowMinutes: 300, resetsAt: '2025-12-25T12:00:00Z' },
        secondary: { usedPercent: 30, windowMinutes: 10080, resetsAt: weekEnd },
        tertiary: { usedPercent: 5, windowMinutes: 10080 },
        extraRateWindows: [
          {
            id: 'claude-weekly-scoped-claude-fable',
            title: 'Fable only',
            window: { usedPercent: 18, windowMinutes: 10080, resetsAt: weekEnd },
          },
          {
            id: 'claude-routines',
            title: 'Daily Routines',
            window: { usedPercent: 40, windowMinutes: 10080, resetsAt: weekEnd },
          },
        ],
        ...identity('claude', 'user@example.com', 'Claude Max 20x'),
      }),
    )
    const [req] = fake.of('claude-usage')
    assert.match(String(req.headers['anthropic-beta']), /oauth-2025-04-20/)
    assert.match(String(req.headers['user-agent']), /^claude-code\//)
  })

  it('claude: a profile that fails leaves e-mail and plan null, the usage still counts', async () => {
    fake.script('claude-profile', { status: 500, body: { error: 'boom' } })
    const env = { CODEXBAR_CLAUDE_OAUTH_TOKEN: ISSUED.claudeToken, HEARTH_CLAUDE_USAGE_URL: fake.url }
    const run = await runCore(USAGE('claude'), env)
    assert.equal(run.code, 0)
    assert.deepEqual(run.report.usage.identity, {
      providerID: 'claude',
      accountEmail: null,
      accountOrganization: null,
      loginMethod: null,
    })
  })

  it('antigravity: fetchAvailableModels with the project, pools as primary and secondary, the plan', async () => {
    const env = {
      ANTIGRAVITY_OAUTH_CREDENTIALS_JSON: JSON.stringify({
        access_token: ISSUED.antigravityToken,
        project_id: ISSUED.antigravityProject,
        email: 'g@example.com',
        expiry_date: Date.now() + 3_600_000,
      }),
      HEARTH_ANTIGRAVITY_BASE_URL: fake.url,
    }
    const run = await runCore(USAGE('antigravity'), env)
    assert.equal(run.code, 0, run.stdout)
    assert.deepEqual(
      withoutUpdatedAt(run.report),
      report('antigravity', 'oauth', {
        primary: { usedPercent: 20, resetsAt: '2026-12-01T10:00:00Z' },
        secondary: { usedPercent: 60, resetsAt: '2026-12-01T12:00:00Z' },
        tertiary: null,
        // Models outside the pools, partly used, in CodexBar's order (Gemini Pro before Flash).
        extraRateWindows: [
          {
            id: 'gemini-3-pro-image',
            title: 'Gemini 3 Pro Image',
            window: { usedPercent: 10, resetsAt: '2026-12-03T00:00:00Z' },
          },
          {
            id: 'gemini-2.5-flash-image',
            title: 'Gemini 2.5 Flash Image',
            window: { usedPercent: 50, resetsAt: '2026-12-02T00:00:00Z' },
          },
          {
            id: 'gemini-2.5-flash-lite',
            title: 'Gemini 2.5 Flash Lite',
            window: { usedPercent: 30, resetsAt: '2026-12-02T00:00:00Z' },
          },
        ],
        ...identity('antigravity', 'g@example.com', 'Paid'),
      }),
    )
    assert.deepEqual(fake.of('antigravity-models')[0].body, { project: ISSUED.antigravityProject })
    assert.equal(fake.of('antigravity-quota').length, 0, 'a partly used answer needs no confirmation')
  })

  it('antigravity: an all-full answer is confirmed by retrieveUserQuota, a refused one replaced by it', async () => {
    const env = {
      ANTIGRAVITY_OAUTH_CREDENTIALS_JSON: JSON.stringify({
        access_token: ISSUED.antigravityToken,
        project_id: ISSUED.antigravityProject,
      }),
      HEARTH_ANTIGRAVITY_BASE_URL: fake.url,
    }
    const { fixture } = await import('../fakes/usage-endpoints.ts')
    fake.script('antigravity-models', {
      status: 200,
      body: fixture('antigravity-available-models-full.json'),
    })
    const confirmed = await runCore(USAGE('antigravity'), env)
    assert.equal(confirmed.code, 0, confirmed.stdout)
    assert.deepEqual(confirmed.report.usage.primary, { usedPercent: 30, resetsAt: '2026-12-01T10:00:00Z' })
    assert.deepEqual(confirmed.report.usage.secondary, { usedPercent: 75, resetsAt: '2026-12-01T12:00:00Z' })
    assert.equal(fake.of('antigravity-quota').length, 1)

    fake.reset()
    fake.script('antigravity-models', {
      status: 403,
      body: { error: { code: 403, status: 'PERMISSION_DENIED' } },
    })
    const replaced = await runCore(USAGE('antigravity'), env)
    assert.equal(replaced.code, 0, replaced.stdout)
    assert.deepEqual(replaced.report.usage.primary, { usedPercent: 30, resetsAt: '2026-12-01T10:00:00Z' })
    assert.deepEqual(replaced.report.usage.secondary, { usedPercent: 75, resetsAt: '2026-12-01T12:00:00Z' })
  })

  it('zai: the shorter token limit as the session, the longer as the week, MCP as a named window', async () => {
    const env = { Z_AI_API_KEY: ISSUED.zaiKey, HEARTH_ZAI_USAGE_URL: fake.url }
    const run = await runCore(USAGE('zai'), env)
    assert.equal(run.code, 0, run.stdout)
    assert.deepEqual(
      withoutUpdatedAt(run.report),
      report('zai', 'api', {
        primary: {
          usedPercent: 25,
          windowMinutes: 300,
          resetsAt: iso(1785816000000),
          resetDescription: '5-hour',
        },
        secondary: {
          usedPercent: 9,
          windowMinutes: 10080,
          resetsAt: iso(1786291200000),
          resetDescription: '1 week window',
        },
        tertiary: null,
        extraRateWindows: [
          {
            id: 'zai-mcp',
            title: 'MCP',
            window: { usedPercent: 22.4, windowMinutes: 43200, resetDescription: 'MCP' },
          },
        ],
        ...identity('zai', null, 'Pro'),
      }),
    )
    assert.equal(fake.of('zai')[0].headers.authorization, `Bearer ${ISSUED.zaiKey}`)
  })

  it('minimax: token-plan lanes (text first, interval before week), the unavailable lane left out', async () => {
    const env = { MINIMAX_API_KEY: ISSUED.minimaxKey, HEARTH_MINIMAX_USAGE_URL: fake.url }
    const run = await runCore(USAGE('minimax'), env)
    assert.equal(run.code, 0, run.stdout)
    assert.deepEqual(
      withoutUpdatedAt(run.report),
      report('minimax', 'api', {
        primary: { usedPercent: 4, windowMinutes: 300, resetsAt: iso(1925010000000) },
        secondary: { usedPercent: 1, windowMinutes: 10080, resetsAt: iso(1925510400000) },
        tertiary: { usedPercent: 25, windowMinutes: 1440, resetsAt: iso(1924992000000) },
        ...identity('minimax', null, 'Token Plan Plus'),
      }),
    )
  })

  it('minimax: the coding-plan endpoint when the token-plan one is missing', async () => {
    fake.script('minimax-token-plan', { status: 404, body: { error: 'not found' } })
    const env = { MINIMAX_CODING_API_KEY: ISSUED.minimaxKey, HEARTH_MINIMAX_USAGE_URL: fake.url }
    const run = await runCore(USAGE('minimax'), env)
    assert.equal(run.code, 0, run.stdout)
    assert.deepEqual(withoutUpdatedAt(run.report).usage, {
      primary: { usedPercent: 20, windowMinutes: 300, resetsAt: iso(1925010000000) },
      secondary: null,
      tertiary: null,
      ...identity('minimax', null, null),
    })
    assert.equal(fake.of('minimax-coding-plan').length, 1)
  })
})
