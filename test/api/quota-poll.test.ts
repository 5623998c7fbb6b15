// The quota poller in the real daemon, with the stand-in usage core (HEARTH_USAGE_CORE) and
// accounts in creds.json: every account polls as the daemon starts; the core gets only the
// access token or the key; a stale token is refreshed once, under the lock, though a turn
// wants it at the same moment; a failed refresh and an account without a refresh token are
// recorded as auth failures; Antigravity's legacy mark is healed; a kill -9 during a poll
// loses and duplicates nothing, and the next start removes the call's folder; a missing HEARTH_USAGE_CORE is a logged driver failure.
//
// Readings are read from the home's state.db (the quota_readings table) while the daemon
// runs: the store behind GET /server's `quota` is its own piece of work.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import Database from 'better-sqlite3'
import { type FakeClaudeAccount, FakeClaudeAuth } from '../fakes/claude-auth.ts'
import { FakeOpenAIUpstream } from '../fakes/openai-upstream.ts'
import { StandInCore, usageReport } from '../fakes/stand-in-core.ts'
import { logLines, startDaemon, type TestDaemon, tempHome, until } from '../helpers/daemon.ts'
import { getSession, idle, message, putInput, running, waitSession } from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'

const HOUR = 3_600_000
const BEN: FakeClaudeAccount = { uuid: 'acc-ben', email: 'ben@example.test' }

interface Row {
  account: string
  provider: string
  limit_id: string
  used_percent: number | null
  reset_at_ms: number | null
  error: string | null
}

function readings(home: string): Row[] {
  const db = new Database(join(home, 'state.db'), { readonly: true, fileMustExist: true })
  try {
    return db.prepare('SELECT * FROM quota_readings ORDER BY id').all() as Row[]
  } finally {
    db.close()
  }
}

const waitReadings = (home: string, what: string, check: (rows: Row[]) => boolean, ms = 30_000) =>
  until(
    what,
    () => {
      try {
        const rows = readings(home)
        return check(rows) ? rows : undefined
      } catch {
        return undefined // the table is not there yet
      }
    },
    ms,
    20,
  )

function writeHome(home: string, files: { config?: object; creds: object; extensions?: object }) {
  mkdirSync(home, { recursive: true })
  writeFileSync(join(home, 'config.json'), JSON.stringify(files.config ?? {}))
  writeFileSync(join(home, 'creds.json'), JSON.stringify(files.creds), { mode: 0o600 })
  if (files.extensions) writeFileSync(join(home, 'extensions.json'), JSON.stringify(files.extensions))
}

const creds = (home: string) => JSON.parse(readFileSync(join(home, 'creds.json'), 'utf8'))

/** A token endpoint in front of another that holds refreshes until released. */
class HeldTokenEndpoint {
  readonly held: (() => void)[] = []
  #server!: Server
  url = ''
  #holding = true

  static async start(target: string): Promise<HeldTokenEndpoint> {
    const e = new HeldTokenEndpoint()
    e.#server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c) => chunks.push(c))
      req.on('end', () => {
        const forward = () => {
          const out = request(target, { method: 'POST', headers: req.headers }, (up) => {
            res.writeHead(up.statusCode ?? 502, up.headers)
            up.pipe(res)
          })
          out.end(Buffer.concat(chunks))
        }
        if (e.#holding) e.held.push(forward)
        else forward()
      })
    })
    await new Promise<void>((r) => e.#server.listen(0, '127.0.0.1', () => r()))
    e.url = `http://127.0.0.1:${(e.#server.address() as AddressInfo).port}/v1/oauth/token`
    return e
  }

  release(): void {
    this.#holding = false
    for (const f of this.held.splice(0)) f()
  }

  close(): Promise<void> {
    this.#server.closeAllConnections()
    return new Promise((r) => this.#server.close(() => r()))
  }
}

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
          chatgpt: {
            access: 'chatgpt-access-token',
            refresh: 'chatgpt-refresh-token',
            expires: Date.now() + HOUR,
            account_id: 'ws-1',
            user_id: 'user-1',
            email: 'ann@example.test',
          },
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
      'readings of four feeds',
      (r) => new Set(r.map((x) => x.provider)).size === 4,
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
  })

  it('the core is handed only the access token or the key, never a refresh token or the daemon’s token', async () => {
    const calls = await core.waitCalls(4)
    const token = readFileSync(join(d.home, 'token'), 'utf8').trim()
    const secrets = [
      token,
      'chatgpt-refresh-token',
      '1//antigravity-refresh',
      String(ben.refresh),
      'mcp-bearer-secret',
    ]
    for (const call of calls) {
      const seen = JSON.stringify(call)
      for (const s of secrets) assert.ok(!seen.includes(s), `${call.feed} was handed a secret`)
      assert.ok(!Object.keys(call.env).some((k) => k === 'HEARTH_TOKEN' || k === 'HEARTH_HOME'))
    }
    const codex = calls.find((c) => c.feed === 'codex')!
    assert.deepEqual(JSON.parse(codex.files.authJson!), {
      tokens: { access_token: 'chatgpt-access-token', account_id: 'ws-1' },
    })
    const ag = JSON.parse(calls.find((c) => c.feed === 'antigravity')!.env.ANTIGRAVITY_OAUTH_CREDENTIALS_JSON)
    assert.deepEqual(Object.keys(ag).sort(), ['access_token', 'email', 'expiry_date', 'project_id'])
    assert.equal(ag.project_id, 'proj-7')
    assert.equal(calls.find((c) => c.feed === 'zai')!.env.Z_AI_API_KEY, 'zai-api-key-secret')
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

describe('quota polling that cannot authenticate or run the core', () => {
  let claudeAuth: FakeClaudeAuth
  let d: TestDaemon
  const missing = '/nonexistent/usage-core'

  before(async () => {
    claudeAuth = await FakeClaudeAuth.start()
    const home = tempHome()
    writeHome(home, {
      creds: {
        accounts: {
          chatgpt: {
            access: 'chatgpt-access-token',
            refresh: 'chatgpt-refresh-token',
            expires: Date.now() + HOUR,
            account_id: 'ws-1',
            user_id: 'user-1',
            email: 'ann@example.test',
          },
          claude: [
            // No refresh token, expired: kept, its auth failure recorded.
            {
              type: 'oauth',
              access: 'sk-ant-oat01-cat',
              expires: Date.now() - 1000,
              email: 'cat@example.test',
            },
            // A refresh token the endpoint refuses: kept, its auth failure recorded.
            {
              type: 'oauth',
              access: 'sk-ant-oat01-dan',
              refresh: 'sk-ant-ort01-revoked',
              expires: Date.now() - 1000,
              email: 'dan@example.test',
            },
          ],
        },
      },
    })
    d = await startDaemon({
      home,
      env: { HEARTH_USAGE_CORE: missing, HEARTH_CLAUDE_TOKEN_URL: claudeAuth.tokenUrl },
    })
  })
  after(async () => {
    await d?.stop()
    await claudeAuth.close()
  })

  it('a failed refresh and an account without a refresh token keep their credential; the failure is a reading', async () => {
    const rows = await waitReadings(
      d.home,
      'two auth failures',
      (r) => r.filter((x) => x.provider === 'claude').length === 2,
    )
    const failures = rows.filter((r) => r.provider === 'claude')
    assert.deepEqual(failures.map((r) => [r.account, r.limit_id]).sort(), [
      ['cat@example.test', ''],
      ['dan@example.test', ''],
    ])
    for (const r of failures) assert.match(r.error ?? '', /run \/login/)
    const stored = creds(d.home).accounts.claude
    assert.deepEqual(
      stored.map((c: any) => c.access),
      ['sk-ant-oat01-cat', 'sk-ant-oat01-dan'],
    )
    assert.equal(claudeAuth.tokenRequests.length, 1, 'only dan has a refresh token to try')
  })

  it('a missing HEARTH_USAGE_CORE is a logged driver failure: no reading, no fallback', async () => {
    const [line] = await until('the driver failure logged', () => {
      const lines = logLines(d.home, 'quota poll failed')
      return lines.length > 0 ? lines : undefined
    })
    assert.equal(line.level, 40)
    assert.equal(line.account, 'ann@example.test')
    assert.equal(line.reason, `HEARTH_USAGE_CORE ${missing} does not exist`)
    assert.deepEqual(
      readings(d.home).filter((r) => r.provider === 'codex'),
      [],
    )
  })
})

describe('a kill -9 during a poll', () => {
  let core: StandInCore
  let d: TestDaemon

  after(async () => {
    await d?.stop()
    core.release('codex', 0)
    core.close()
  })

  it('loses no recorded reading and duplicates none; the next start polls at once', async () => {
    core = new StandInCore()
    const report = usageReport('codex', { primary: [30, 300, Date.now() + HOUR] })
    core.script('codex', [{ stdout: report, block: true }, { stdout: report }])
    const home = tempHome()
    writeHome(home, {
      creds: {
        accounts: {
          chatgpt: {
            access: 'a',
            refresh: 'r',
            expires: Date.now() + HOUR,
            account_id: 'ws',
            email: 'ann@example.test',
          },
        },
      },
    })
    const env = { HEARTH_USAGE_CORE: core.path }
    d = await startDaemon({ home, env })
    const [first] = await core.waitCalls(1, 'codex')
    await d.stop('SIGKILL')
    assert.ok(existsSync(first.cwd), 'the killed daemon could not remove the call’s folder')
    d = await startDaemon({ home, env })
    await core.waitCalls(2, 'codex')
    await until('the killed daemon’s folder swept', () => !existsSync(first.cwd))
    const rows = await waitReadings(home, 'the second start’s reading', (r) => r.length === 1)
    assert.equal(rows[0].used_percent, 30)
    core.release('codex', 0) // the orphaned call answers to nobody
    await d.stop()
    d = undefined as unknown as TestDaemon
    assert.equal(readings(home).length, 1)
  })
})

describe('the daemon’s drain during a poll', () => {
  it('kills the core in flight and removes its folder', async () => {
    const core = new StandInCore()
    core.script('codex', [{ stdout: usageReport('codex'), block: true, child: true }])
    const home = tempHome()
    writeHome(home, {
      creds: {
        accounts: {
          chatgpt: {
            access: 'a',
            refresh: 'r',
            expires: Date.now() + HOUR,
            account_id: 'ws',
            email: 'ann@example.test',
          },
        },
      },
    })
    const d = await startDaemon({ home, env: { HEARTH_USAGE_CORE: core.path } })
    try {
      const [call] = await core.waitCalls(1, 'codex')
      assert.equal(await d.stop(), 0)
      assert.equal(existsSync(call.cwd), false)
      await until(
        'the core and its child gone',
        () => !running(call.pid) && !running(call.childPid!),
        5000,
        20,
      )
      assert.deepEqual(readings(home), [])
    } finally {
      await d.stop()
      core.close()
    }
  })
})
