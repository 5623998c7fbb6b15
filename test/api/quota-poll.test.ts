// The quota poller in the real daemon, with the stand-in usage core (HEARTH_USAGE_CORE) and
// accounts in creds.json: every account polls as the daemon starts; the core gets only the
// access token or the key (copilot's: the GitHub token, not the Copilot token); a stale token is refreshed once, under the lock, though a turn
// wants it at the same moment; Antigravity's legacy mark is healed, other sections kept.
// Failures, kill -9 and the drain: quota-poll-failures.test.ts.
// Readings are read as recorded (the home's state.db, every row) and as served (GET /server).
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type FakeClaudeAccount, FakeClaudeAuth } from '../fakes/claude-auth.ts'
import { FakeOpenAIUpstream } from '../fakes/openai-upstream.ts'
import { StandInCore, usageReport } from '../fakes/stand-in-core.ts'
import { startDaemon, type TestDaemon, tempHome, until } from '../helpers/daemon.ts'
import {
  chatgptAccount,
  creds,
  HeldTokenEndpoint,
  HOUR,
  waitReadings,
  writeHome,
} from '../helpers/quota-poll.ts'
import { getSession, idle, message, putInput, waitSession } from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'

const BEN: FakeClaudeAccount = { uuid: 'acc-ben', email: 'ben@example.test' }

describe('quota polling in the daemon', () => {
  let core: StandInCore
  let auth: FakeClaudeAuth
  let held: HeldTokenEndpoint
  let upstream: FakeOpenAIUpstream
  let d: TestDaemon
  let ben: Record<string, unknown>
  const reset = Math.floor((Date.now() + 3 * HOUR) / 1000) * 1000 + 500
  const agMark = reset + 123 // the same second as the gemini limit's reset

  before(async () => {
    core = new StandInCore()
    auth = await FakeClaudeAuth.start()
    held = await HeldTokenEndpoint.start(auth.tokenUrl)
    upstream = await FakeOpenAIUpstream.start()
    const tokens = auth.issue(BEN)
    ben = {
      type: 'oauth',
      access: tokens.access_token,
      refresh: tokens.refresh_token,
      expires: Date.now() + 30_000, // inside the refresh lead
      email: BEN.email,
    }
    core.script('codex', [{ stdout: usageReport('codex', { primary: [25, 300, reset], plan: 'plus' }) }])
    core.script('claude', [
      { stdout: usageReport('claude', { primary: [85, 300, reset], secondary: [40, 10080, reset] }) },
    ])
    core.script('antigravity', [
      {
        stdout: usageReport('antigravity', {
          extra: [
            {
              id: 'gemini-3-pro',
              title: 'Gemini 3 Pro',
              used: 100,
              resetMs: Math.floor(reset / 1000) * 1000,
            },
            { id: 'claude-sonnet-4-5', title: 'Claude Sonnet 4.5', used: 20, resetMs: reset + HOUR },
          ],
        }),
      },
    ])
    core.script('zai', [{ stdout: usageReport('zai', { primary: [5, 300, reset] }) }])
    core.script('copilot', [
      { stdout: usageReport('copilot', { primary: [30, 0, reset], plan: 'Individual' }) },
    ])
    const home = tempHome()
    writeHome(home, {
      config: {
        providers: {
          default_profile: 'sub',
          profiles: {
            sub: { extension: 'claude', protocol: 'chat_completions', model: 'claude-sonnet-4-5-20250929' },
            glm: { endpoint: 'https://api.z.ai/api/paas/v4', protocol: 'chat_completions', model: 'glm-4.6' },
          },
        },
      },
      creds: {
        accounts: {
          chatgpt: chatgptAccount(),
          claude: ben,
          antigravity: {
            type: 'oauth',
            access: 'ya29.antigravity-access',
            refresh: '1//antigravity-refresh',
            expires: Date.now() + HOUR,
            projectId: 'proj-7',
            email: 'cy@example.test',
            limitedUntil: agMark,
          },
          copilot: {
            type: 'oauth',
            github: 'ghu_copilot-github-token',
            access: 'tid=copilot-access-token',
            expires: Date.now() + HOUR,
            api: 'https://api.individual.githubcopilot.com',
            host: 'github.com',
            user_id: 42,
            login: 'dee',
          },
        },
        providers: { glm: { apiKey: 'zai-api-key-secret' } },
        mcp: { docs: { bearerToken: 'mcp-bearer-secret' } },
      },
    })
    d = await startDaemon({
      home,
      env: {
        HEARTH_USAGE_CORE: core.path,
        HEARTH_CLAUDE_TOKEN_URL: held.url,
        HEARTH_CLAUDE_BASE_URL: upstream.url,
      },
    })
  })
  after(async () => {
    held.release()
    await d?.stop()
    await upstream.close()
    await held.close()
    await auth.close()
    core.close()
  })

  it('a stale token is refreshed once, under the lock, though a turn wants it at the same moment', async () => {
    await until('the poll’s refresh at the token endpoint', () => held.held.length === 1)
    const sid = await createSession(d)
    await putInput(d, sid, message('hello'))
    // The turn's run waits for the credential lock the poll's refresh holds.
    while ((await getSession(d, sid)).status.phase === 'idle') await new Promise((r) => setTimeout(r, 10))
    held.release()
    const s = await waitSession(d, sid, idle)
    assert.equal(s.latest_answer.outcome, 'completed')
    const refreshes = auth.tokenRequests.filter((t) => t.body.grant_type === 'refresh_token')
    assert.equal(refreshes.length, 1)
    const stored = creds(d.home).accounts.claude
    assert.notEqual(stored.access, ben.access)
    assert.equal(upstream.requests.at(-1)!.headers.authorization, `Bearer ${stored.access}`)
    const [call] = await core.waitCalls(1, 'claude')
    assert.equal(call.env.CODEXBAR_CLAUDE_OAUTH_TOKEN, stored.access)
  })

  it('every account and key profile polls as the daemon starts, its readings recorded', async () => {
    const rows = await waitReadings(
      d.home,
      'readings of five feeds',
      (r) => new Set(r.map((x) => x.provider)).size === 5,
    )
    const of = (provider: string) => rows.filter((r) => r.provider === provider)
    assert.deepEqual(
      of('codex').map((r) => [r.account, r.limit_id, r.used_percent]),
      [['ann@example.test', 'primary', 25]],
    )
    assert.deepEqual(
      of('claude').map((r) => [r.account, r.limit_id, r.used_percent]),
      [
        ['ben@example.test', 'primary', 85],
        ['ben@example.test', 'secondary', 40],
      ],
    )
    assert.equal(of('antigravity')[0].account, 'cy@example.test')
    assert.deepEqual(of('zai')[0].account, 'glm')
    assert.deepEqual(
      of('copilot').map((r) => [r.account, r.limit_id, r.used_percent]),
      [['dee', 'primary', 30]],
    )
    // GET /server serves the latest reading of each account's limits.
    const key = (r: { provider: string; account: string; limit_id: string; used_percent: number | null }) =>
      JSON.stringify([r.provider, r.account, r.limit_id, r.used_percent])
    const latest = new Map(rows.map((r) => [JSON.stringify([r.provider, r.account, r.limit_id]), key(r)]))
    const served = (await d.request({ path: '/server' })).json().quota as Parameters<typeof key>[0][]
    assert.deepEqual(served.map(key).sort(), [...latest.values()].sort())
  })

  it('the core is handed only the access token or the key, never a refresh token or the daemon’s token', async () => {
    const calls = await core.waitCalls(5)
    const token = readFileSync(join(d.home, 'token'), 'utf8').trim()
    const secrets = [
      token,
      'chatgpt-refresh-token',
      '1//antigravity-refresh',
      String(ben.refresh),
      'mcp-bearer-secret',
      'tid=copilot-access-token',
    ]
    for (const call of calls) {
      const seen = JSON.stringify(call)
      for (const s of secrets) assert.ok(!seen.includes(s), `${call.feed} was handed a secret`)
      assert.ok(!Object.keys(call.env).some((k) => k === 'HEARTH_TOKEN' || k === 'HEARTH_HOME'))
    }
    const codex = calls.find((c) => c.feed === 'codex')!
    assert.deepEqual(JSON.parse(codex.files.authJson!), {
      tokens: { access_token: 'chatgpt-access-token', refresh_token: '', account_id: 'ws-1' },
      last_refresh: JSON.parse(codex.files.authJson!).last_refresh,
    })
    assert.ok(
      Date.now() - Date.parse(JSON.parse(codex.files.authJson!).last_refresh) < 60_000,
      'a fresh last_refresh',
    )
    const ag = JSON.parse(calls.find((c) => c.feed === 'antigravity')!.env.ANTIGRAVITY_OAUTH_CREDENTIALS_JSON)
    assert.deepEqual(Object.keys(ag).sort(), ['access_token', 'email', 'expiry_date', 'project_id'])
    assert.equal(ag.project_id, 'proj-7')
    assert.equal(calls.find((c) => c.feed === 'zai')!.env.Z_AI_API_KEY, 'zai-api-key-secret')
    // Copilot's usage endpoint takes the GitHub token, never the Copilot token it is exchanged for.
    const copilot = calls.find((c) => c.feed === 'copilot')!
    assert.equal(copilot.env.COPILOT_API_TOKEN, 'ghu_copilot-github-token')
    const own = Object.keys(copilot.env).filter(
      (k) => !['PATH', 'HOME', 'LANG', 'TMPDIR'].includes(k) && !/^HEARTH_[A-Z0-9_]+_URL$/.test(k),
    )
    assert.deepEqual(own, ['COPILOT_API_TOKEN'], 'nothing but the GitHub token is handed over')
  })

  it('Antigravity’s legacy limitedUntil is re-keyed to the meter whose limit resets then; other sections kept', async () => {
    const healed = await until('the mark healed', () => {
      const c = creds(d.home)
      return c.accounts.antigravity.limitedUntil === undefined ? c : undefined
    })
    assert.deepEqual(healed.accounts.antigravity.limitedMeters, { gemini: agMark })
    assert.deepEqual(healed.mcp, { docs: { bearerToken: 'mcp-bearer-secret' } })
    assert.deepEqual(healed.providers, { glm: { apiKey: 'zai-api-key-secret' } })
  })
})
