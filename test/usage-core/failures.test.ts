// The built usage core's failures: every failure of a feed is a report with `error` and
// `usage: null` and CodexBar's exit code, never a stack trace, never a credential; a bad
// command line is CodexBar's argument error.
import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, it } from 'node:test'
import { Value } from 'typebox/value'
import { CORE_EXIT, UsageReport } from '../../src/quota/report.ts'
import { FakeUsageEndpoints, ISSUED } from '../fakes/usage-endpoints.ts'
import { codexHome, runCore } from './run-core.ts'

const USAGE = (feed: string) => ['usage', '--provider', feed, '--format', 'json']

let fake: FakeUsageEndpoints
before(async () => {
  fake = await FakeUsageEndpoints.start()
})
after(() => fake.close())
beforeEach(() => fake.reset())

const codexEnv = (
  tokens: Record<string, string> = { access_token: ISSUED.chatgptToken, account_id: ISSUED.chatgptAccount },
) => ({
  CODEX_HOME: codexHome(tokens),
  HEARTH_CHATGPT_USAGE_URL: `${fake.url}/backend-api`,
})
const claudeEnv = () => ({
  CODEXBAR_CLAUDE_OAUTH_TOKEN: ISSUED.claudeToken,
  HEARTH_CLAUDE_USAGE_URL: fake.url,
})
const antigravityEnv = (cred: object) => ({
  ANTIGRAVITY_OAUTH_CREDENTIALS_JSON: JSON.stringify(cred),
  HEARTH_ANTIGRAVITY_BASE_URL: fake.url,
})

/** A failure report of `provider`: error with `code` as the exit code, kind provider, no usage. */
function assertFailure(
  run: Awaited<ReturnType<typeof runCore>>,
  provider: string,
  code: number,
  message: RegExp,
) {
  assert.ok(Value.Check(UsageReport, run.report as unknown), run.stdout)
  assert.equal(run.report.provider, provider)
  assert.equal(run.report.usage, null)
  assert.equal(run.report.error.kind, 'provider')
  assert.equal(run.report.error.code, code)
  assert.match(run.report.error.message, message)
  assert.equal(run.code, code, 'the exit code is the error code')
  assert.doesNotMatch(run.stdout, /\n\s+at /, 'no stack trace')
}

describe('usage core: provider failures', () => {
  it('401: a bearer the vendor did not issue', async () => {
    const run = await runCore(
      USAGE('codex'),
      codexEnv({ access_token: 'chatgpt-not-issued-token-0123456789', account_id: ISSUED.chatgptAccount }),
    )
    assertFailure(run, 'codex', CORE_EXIT.unexpected, /expired or invalid \(HTTP 401\)/)
    assert.doesNotMatch(run.stdout, /chatgpt-not-issued-token/)
  })

  it('403: a workspace header the vendor does not know', async () => {
    const run = await runCore(
      USAGE('codex'),
      codexEnv({ access_token: ISSUED.chatgptToken, account_id: 'acct-other' }),
    )
    assertFailure(run, 'codex', CORE_EXIT.unexpected, /HTTP 403/)
  })

  it('401: a Claude token the vendor did not issue', async () => {
    const run = await runCore(USAGE('claude'), {
      ...claudeEnv(),
      CODEXBAR_CLAUDE_OAUTH_TOKEN: 'sk-ant-oat01-wrong-token-0123456789',
    })
    assertFailure(run, 'claude', CORE_EXIT.unexpected, /unauthorized \(HTTP 401\)/)
    assert.doesNotMatch(run.stdout, /sk-ant-oat01-wrong/)
  })

  it('429 with Retry-After: rate limited, the wait named', async () => {
    fake.script('claude-usage', {
      status: 429,
      headers: { 'retry-after': '120' },
      body: { type: 'error', error: { type: 'rate_limit_error', message: 'Rate limited' } },
    })
    const run = await runCore(USAGE('claude'), claudeEnv())
    assertFailure(run, 'claude', CORE_EXIT.unexpected, /rate limited \(HTTP 429\); retry after 120/)
  })

  it('500: the vendor body in the message, a credential in it redacted', async () => {
    fake.script('claude-usage', {
      status: 500,
      body: { error: `internal error for token ${ISSUED.claudeToken}` },
    })
    const run = await runCore(USAGE('claude'), claudeEnv())
    assertFailure(run, 'claude', CORE_EXIT.unexpected, /HTTP 500 – .*internal error for token \[redacted\]/)
  })

  it('5xx of an API-key feed', async () => {
    fake.script('zai', { status: 503, body: 'upstream unavailable' })
    const run = await runCore(USAGE('zai'), { Z_AI_API_KEY: ISSUED.zaiKey, HEARTH_ZAI_USAGE_URL: fake.url })
    assertFailure(run, 'zai', CORE_EXIT.unexpected, /z\.ai quota API error: HTTP 503/)
  })

  it('malformed vendor JSON: a parse error, exit 3', async () => {
    fake.script('codex', { malformed: true })
    const run = await runCore(USAGE('codex'), codexEnv())
    assertFailure(run, 'codex', CORE_EXIT.parse, /Could not parse Codex usage response/)
  })

  it('JSON of another shape: a parse error, exit 3', async () => {
    fake.script('zai', {
      status: 200,
      body: { code: 200, success: true, data: { limits: [{ type: 'TOKENS_LIMIT', unit: 'hours' }] } },
    })
    const run = await runCore(USAGE('zai'), { Z_AI_API_KEY: ISSUED.zaiKey, HEARTH_ZAI_USAGE_URL: fake.url })
    assertFailure(run, 'zai', CORE_EXIT.parse, /Could not parse z\.ai usage response/)
  })

  it('a vendor that never answers: a timeout, exit 4', async () => {
    fake.script('minimax-token-plan', { hang: true })
    const env = {
      MINIMAX_API_KEY: ISSUED.minimaxKey,
      HEARTH_MINIMAX_USAGE_URL: fake.url,
      HEARTH_USAGE_CORE_CALL_TIMEOUT_MS: '300',
    }
    const started = Date.now()
    const run = await runCore(USAGE('minimax'), env)
    assertFailure(run, 'minimax', CORE_EXIT.timeout, /timed out after 300 ms/)
    assert.ok(Date.now() - started < 10_000)
  })

  it('a host that refuses connections: a network error', async () => {
    const closed = await FakeUsageEndpoints.start()
    const url = closed.url
    await closed.close()
    const run = await runCore(USAGE('antigravity'), {
      ...antigravityEnv({ access_token: ISSUED.antigravityToken, project_id: ISSUED.antigravityProject }),
      HEARTH_ANTIGRAVITY_BASE_URL: url,
    })
    assertFailure(run, 'antigravity', CORE_EXIT.unexpected, /Antigravity network error: ECONNREFUSED/)
  })

  it('antigravity: a request without the account project is refused, and no quota is reported', async () => {
    const run = await runCore(USAGE('antigravity'), antigravityEnv({ access_token: ISSUED.antigravityToken }))
    assertFailure(run, 'antigravity', CORE_EXIT.parse, /no quota models/)
    assert.deepEqual(fake.of('antigravity-models')[0].body, {})
  })

  it('minimax: a key the global host rejects on both endpoints', async () => {
    const run = await runCore(USAGE('minimax'), {
      MINIMAX_API_KEY: 'sk-cp-not-issued-0123456789',
      HEARTH_MINIMAX_USAGE_URL: fake.url,
    })
    assertFailure(run, 'minimax', CORE_EXIT.unexpected, /rejected the API key/)
    assert.equal(fake.of('minimax-coding-plan').length, 1, 'the older endpoint was tried')
  })
})

describe('usage core: credentials', () => {
  const missing: [string, RegExp][] = [
    ['codex', /auth\.json not found/],
    ['claude', /CODEXBAR_CLAUDE_OAUTH_TOKEN is not set/],
    ['antigravity', /ANTIGRAVITY_OAUTH_CREDENTIALS_JSON is not set/],
    ['zai', /Z_AI_API_KEY is not set/],
    ['minimax', /MINIMAX_CODING_API_KEY or MINIMAX_API_KEY is not set/],
  ]
  for (const [feed, message] of missing)
    it(`${feed}: a missing credential is a report, not a call`, async () => {
      const run = await runCore(USAGE(feed), {
        HEARTH_CHATGPT_USAGE_URL: fake.url,
        HEARTH_CLAUDE_USAGE_URL: fake.url,
      })
      assertFailure(run, feed, CORE_EXIT.unexpected, message)
      assert.equal(fake.requests.length, 0)
    })

  it('malformed credentials: auth.json without tokens, credentials JSON that does not parse', async () => {
    const codex = await runCore(USAGE('codex'), codexEnv({ id_token: 'x' }))
    assertFailure(codex, 'codex', CORE_EXIT.unexpected, /contains no tokens/)
    const antigravity = await runCore(USAGE('antigravity'), {
      ANTIGRAVITY_OAUTH_CREDENTIALS_JSON: `{"access_token":"${ISSUED.antigravityToken}"`,
      HEARTH_ANTIGRAVITY_BASE_URL: fake.url,
    })
    assertFailure(antigravity, 'antigravity', CORE_EXIT.unexpected, /Could not decode/)
    assert.equal(fake.requests.length, 0)
  })

  it('claude: a token without the user:profile scope is refused before the call', async () => {
    const run = await runCore(USAGE('claude'), {
      ...claudeEnv(),
      CODEXBAR_CLAUDE_OAUTH_SCOPES: 'user:inference',
    })
    assertFailure(run, 'claude', CORE_EXIT.parse, /missing 'user:profile' scope \(has: user:inference\)/)
    assert.equal(fake.requests.length, 0)
  })
})

describe('usage core: the command line', () => {
  const cases: [string, string[], RegExp][] = [
    [
      'an unknown argument',
      ['usage', '--provider', 'codex', '--format', 'json', '--bogus'],
      /unknown argument '--bogus'/,
    ],
    ['an unknown provider', USAGE('kimi'), /unknown provider 'kimi'/],
    ['no provider', ['usage', '--format', 'json'], /--provider is required/],
    ['another format', ['usage', '--provider', 'codex', '--format', 'text'], /--format must be json/],
    ['a bad source', ['usage', '--provider', 'codex', '--source', 'magic'], /--source must be/],
  ]
  for (const [what, args, message] of cases)
    it(`${what}: CodexBar's argument error, exit 1`, async () => {
      const run = await runCore(args, {})
      assert.ok(Value.Check(UsageReport, run.report as unknown))
      assert.deepEqual(
        { ...run.report, error: { ...run.report.error, message: '' } },
        {
          provider: 'cli',
          account: null,
          version: null,
          source: 'cli',
          status: null,
          usage: null,
          error: { code: 1, message: '', kind: 'args' },
        },
      )
      assert.match(run.report.error.message, message)
      assert.equal(run.code, CORE_EXIT.unexpected)
    })

  it("CodexBar's other spellings: `usage` left out, --provider=ID, --pretty, --source", async () => {
    const run = await runCore(['--provider=zai', '--format=json', '--pretty', '--source', 'api'], {
      Z_AI_API_KEY: ISSUED.zaiKey,
      HEARTH_ZAI_USAGE_URL: fake.url,
    })
    assert.equal(run.code, 0, run.stdout)
    assert.equal(run.report.provider, 'zai')
    assert.match(run.stdout, /^\{\n {2}"provider"/)
  })
})
