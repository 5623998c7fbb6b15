// The antigravity provider end to end through the daemon, against the fake Google token
// endpoint and Cloud Code Assist backend (HEARTH_ANTIGRAVITY_TOKEN_URL / _BASE_URL):
// GET /auth offers it with the policy, the browser sign-in moves off a busy 51121 to an
// ephemeral port, the project step onboards the account, and turns carry the project and
// the user agent. A 429 marks only its model's meter, a 401 marks the access token expired
// (the next turn refreshes it), and a revoked refresh token signs the account out.
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { v7 as uuidv7 } from 'uuid'
import { FakeAntigravityBackend, type FakeGoogleUser } from '../fakes/antigravity-backend.ts'
import { startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'
import { idle, message, putInput, waitSession } from '../inputs/helpers.ts'
import { fileJson } from '../settings/helpers.ts'
import { createSession } from '../streams/sse-client.ts'

let openGate = () => {}
const ADA: FakeGoogleUser = {
  email: 'ada@example.com',
  project: null,
  onboardProject: 'managed-ada',
  onboardGate: new Promise<void>((resolve) => {
    openGate = resolve
  }),
}
const BOB: FakeGoogleUser = { email: 'bob@example.com', project: 'proj-bob' }

/** Holds 127.0.0.1:51121 (when something else already does, it is busy all the same). */
async function occupy51121(): Promise<Server | null> {
  const server = createServer()
  return new Promise((resolve) => {
    server.once('error', () => resolve(null))
    server.listen(51121, '127.0.0.1', () => resolve(server))
  })
}

describe('antigravity through the daemon', () => {
  let fake: FakeAntigravityBackend
  let d: TestDaemon
  let blocker: Server | null

  const accounts = () => {
    const stored = fileJson(d.home, 'creds.json').accounts?.antigravity
    return stored === undefined ? [] : Array.isArray(stored) ? stored : [stored]
  }
  const generations = () =>
    fake.requests.filter((r) => r.path.startsWith('/v1internal:streamGenerateContent'))

  async function turn(profile: string, text: string) {
    const sid = await createSession(d, { kind: 'new', workspace: d.home, provider_profile: profile })
    await putInput(d, sid, message(text))
    const done = await waitSession(d, sid, idle)
    const error = done.history.items.find((e: any) => e.kind === 'error')
    return { sid, done, error, outcome: done.latest_answer?.outcome }
  }

  async function until(check: () => boolean, what: string) {
    const deadline = Date.now() + 5000
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`never: ${what}`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }

  before(async () => {
    fake = await FakeAntigravityBackend.start()
    blocker = await occupy51121()
    const home = tempHome()
    mkdirSync(home, { recursive: true })
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        providers: {
          default_profile: 'ag',
          profiles: {
            ag: { extension: 'antigravity', protocol: 'chat_completions', model: 'gemini-3-pro-preview' },
            agc: { extension: 'antigravity', protocol: 'chat_completions', model: 'claude-sonnet-4-5' },
          },
        },
      }),
    )
    d = await startDaemon({
      home,
      env: {
        HEARTH_ANTIGRAVITY_TOKEN_URL: fake.tokenUrl,
        HEARTH_ANTIGRAVITY_BASE_URL: fake.url,
        HEARTH_ANTIGRAVITY_VERSION: '7.7.7',
        HEARTH_NO_BROWSER: '1',
      },
    })
  })
  after(async () => {
    await d.stop()
    await fake.close()
    blocker?.close()
  })

  it('GET /auth offers antigravity, signed out, with the policy and the pointer to Vertex', async () => {
    const auth = (await d.request({ path: '/auth' })).json()
    const p = auth.providers.find((x: any) => x.extension === 'antigravity')
    assert.equal(p.label, 'Antigravity')
    assert.equal(p.status, 'signed out')
    assert.match(p.detail, /terms forbid/)
    assert.match(p.detail, /suspended/)
    assert.match(p.detail, /vertex/i)
  })

  it('GET /models covers an antigravity profile and the extension (the google catalogue)', async () => {
    const byProfile = (await d.request({ path: '/models?provider_profile=ag&model=gemini-2.5-flash' })).json()
    assert.equal(byProfile.extension, 'antigravity')
    assert.equal(byProfile.provider, 'google')
    assert.equal(byProfile.items[0].id, 'gemini-2.5-flash')
    const byExtension = (await d.request({ path: '/models?provider=antigravity' })).json()
    assert.equal(byExtension.provider, 'google')
    assert.ok(byExtension.items.some((m: any) => m.id.startsWith('gemini-')))
  })

  it('a signed-out provider fails the turn with signed_out, ending in run /login', async () => {
    const { error } = await turn('ag', 'hello')
    assert.equal(error.content.problem.code, 'signed_out')
    assert.match(error.content.problem.detail, /run \/login$/)
  })

  it('browser sign-in: 51121 busy moves to an ephemeral port; the project step onboards the account', async () => {
    // Whoever held 51121 at start (another run of these tests) may have let it go since.
    blocker ??= await occupy51121()
    const id = uuidv7()
    const created = await d.request({
      method: 'PUT',
      path: `/auth/logins/${id}`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'antigravity', flow: 'browser', values: {} }),
    })
    assert.equal(created.status, 201, created.text())
    const login = created.json()
    assert.equal(login.state, 'waiting', JSON.stringify(login))
    const url = new URL(login.url)
    const redirect = new URL(url.searchParams.get('redirect_uri') as string)
    assert.equal(redirect.hostname, '127.0.0.1')
    assert.equal(redirect.pathname, '/oauth-callback')
    assert.notEqual(redirect.port, '51121', 'the busy port is not used')
    // The browser: the person signs in, Google redirects to the daemon's listener.
    const code = fake.authorize(ADA, url.searchParams.get('code_challenge') as string, redirect.toString())
    const returned = fetch(
      `${redirect}?state=${url.searchParams.get('state')}&code=${encodeURIComponent(code)}`,
    )
    // While the backend provisions the project, the login shows the step.
    const read = async () => (await d.request({ path: `/auth/logins/${id}` })).json()
    let seen = await read()
    for (
      const deadline = Date.now() + 5000;
      seen.progress !== 'onboarding the account' && Date.now() < deadline;
    ) {
      await new Promise((r) => setTimeout(r, 20))
      seen = await read()
    }
    assert.equal(seen.state, 'exchanging')
    assert.equal(seen.progress, 'onboarding the account')
    openGate()
    const back = await returned
    assert.equal(back.status, 200, await back.text())
    const done = (await d.request({ path: `/auth/logins/${id}` })).json()
    assert.equal(done.state, 'complete', JSON.stringify(done))
    assert.equal(done.accounts[0].email, 'ada@example.com')
    const [stored] = accounts()
    assert.deepEqual(Object.keys(stored).sort(), [
      'access',
      'email',
      'expires',
      'projectId',
      'refresh',
      'type',
    ])
    assert.equal(stored.projectId, 'managed-ada')
    assert.equal(fake.requests.filter((r) => r.path === '/v1internal:onboardUser').length, 1)
    const auth = (await d.request({ path: '/auth' })).json()
    assert.equal(auth.providers.find((x: any) => x.extension === 'antigravity').status, 'signed in')
  })

  it('a turn carries the project and user agent; the next replays the signed parts to the same model', async () => {
    fake.enqueue({ thoughts: ['Think.'], text: ['First.'] })
    const first = await turn('ag', 'one')
    assert.equal(first.outcome, 'completed', JSON.stringify(first.error))
    const sent = generations().at(-1)
    assert.equal(sent?.body.project, 'managed-ada')
    assert.equal(sent?.headers['user-agent'], 'antigravity/hub/7.7.7')
    assert.equal(sent?.headers.authorization, `Bearer ${accounts()[0].access}`)
    assert.doesNotMatch(JSON.stringify(first.done.history.items), /antigravity\.parts|sig-/)
    await putInput(d, first.sid, message('two'))
    const second = await waitSession(d, first.sid, idle)
    assert.equal(second.latest_answer.outcome, 'completed')
    const replayed = generations().at(-1)?.body.request.contents[1]
    assert.equal(replayed.role, 'model')
    assert.equal(replayed.parts[0].thought, true)
    assert.ok(fake.signatures.has(replayed.parts.at(-1).thoughtSignature), JSON.stringify(replayed))
  })

  it('a 429 marks the meter of the model only; the pool orders by meter', async () => {
    const reset = Date.parse('2099-01-01T00:00:00Z')
    fake.enqueue({
      status: 429,
      errorBody: {
        error: {
          code: 429,
          status: 'RESOURCE_EXHAUSTED',
          message: 'quota exhausted',
          details: [{ reason: 'QUOTA_EXHAUSTED', metadata: { quotaResetTimeStamp: '2099-01-01T00:00:00Z' } }],
        },
      },
    })
    const limited = await turn('ag', 'too much')
    assert.equal(limited.error.content.problem.code, 'upstream_rate_limited')
    await until(() => accounts()[0].limitedMeters !== undefined, 'the meter is marked')
    assert.deepEqual(accounts()[0].limitedMeters, { gemini: reset })
    assert.equal(accounts()[0].limitedUntil, undefined, 'not the whole account')
    // A hand-written account in the stored shape joins the pool as it is; Ada is selected.
    const bob = fake.issue(BOB)
    const creds = fileJson(d.home, 'creds.json')
    const ada = { ...accounts()[0], selected: true }
    const hand = {
      type: 'oauth',
      access: bob.access_token,
      refresh: bob.refresh_token,
      expires: Date.now() + 3_600_000,
      projectId: 'proj-bob',
      email: BOB.email,
    }
    creds.accounts.antigravity = [ada, hand]
    writeFileSync(join(d.home, 'creds.json'), JSON.stringify(creds))
    const gemini = await turn('ag', 'gemini goes to bob')
    assert.equal(gemini.outcome, 'completed', JSON.stringify(gemini.error))
    assert.equal(generations().at(-1)?.body.project, 'proj-bob')
    const claude = await turn('agc', 'claude stays on ada')
    assert.equal(claude.outcome, 'completed', JSON.stringify(claude.error))
    assert.equal(generations().at(-1)?.body.project, 'managed-ada')
  })

  it('a 401 marks the access token expired; the next turn refreshes it', async () => {
    const before = accounts()[0]
    fake.expire(before.access)
    const refused = await turn('agc', 'refused')
    assert.equal(refused.error.content.problem.code, 'upstream_unauthorized')
    assert.match(refused.error.content.problem.detail, /run \/login$/)
    await until(() => accounts()[0].expires === 0, 'the token is marked expired')
    assert.equal(accounts()[0].refresh, before.refresh, 'the account is kept')
    const again = await turn('agc', 'refreshed')
    assert.equal(again.outcome, 'completed', JSON.stringify(again.error))
    const now = accounts()[0]
    assert.notEqual(now.access, before.access)
    assert.equal(generations().at(-1)?.headers.authorization, `Bearer ${now.access}`)
    assert.equal(now.selected, true)
    assert.deepEqual(now.limitedMeters, before.limitedMeters)
  })

  it('a revoked refresh token signs the account out: skipped, and alone it reads signed out', async () => {
    const ada = accounts()[0]
    fake.revoke(ada.refresh)
    fake.expire(ada.access)
    const refused = await turn('agc', 'refused again')
    assert.equal(refused.error.content.problem.code, 'upstream_unauthorized')
    await until(() => accounts()[0].expires === 0, 'the token is marked expired')
    const skipped = await turn('agc', 'bob takes it')
    assert.equal(skipped.outcome, 'completed', JSON.stringify(skipped.error))
    assert.equal(generations().at(-1)?.body.project, 'proj-bob')
    assert.equal(accounts()[0].refresh, undefined, 'the revoked refresh token is gone')
    const creds = fileJson(d.home, 'creds.json')
    creds.accounts.antigravity = accounts()[0]
    writeFileSync(join(d.home, 'creds.json'), JSON.stringify(creds))
    const auth = (await d.request({ path: '/auth' })).json()
    assert.equal(auth.providers.find((x: any) => x.extension === 'antigravity').status, 'signed out')
    assert.equal(auth.accounts.find((a: any) => a.provider === 'antigravity').refreshable, false)
    const none = await turn('agc', 'nobody')
    assert.equal(none.error.content.problem.code, 'no_usable_account')
    assert.match(none.error.content.problem.detail, /run \/login$/)
  })
})
