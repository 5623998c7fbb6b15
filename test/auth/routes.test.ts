// The provider-auth routes of a real daemon, with the chatgpt sign-in pointed (through
// settings) at a fake issuer speaking the real token wire format: logins by browser
// callback and by paste, idempotent creation, saved accounts (replace or append), account
// removal rules, a restart, and no secret in any response or the log.
import assert from 'node:assert/strict'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { v7 as uuidv7 } from 'uuid'
import { assertProblem } from '../api/hostile.ts'
import { FakeChatgptBackend, type FakeSeat } from '../fakes/chatgpt-backend.ts'
import { type RawResponse, startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'
import { change, fileJson } from '../settings/helpers.ts'
import { freePort } from './oidc-peer.ts'

const ALICE: FakeSeat = { accountId: 'ws-1', userId: 'user-alice', email: 'alice@example.test', plan: 'plus' }
const BOB: FakeSeat = { accountId: 'ws-1', userId: 'user-bob', email: 'bob@example.test', plan: 'team' }

describe('provider auth routes (chatgpt against a fake issuer)', () => {
  let fake: FakeChatgptBackend
  let d: TestDaemon
  let port: number
  const seen: RawResponse[] = []
  const req = async (r: Parameters<TestDaemon['request']>[0]) => {
    const res = await d.request(r)
    seen.push(res)
    return res
  }
  const put = (id: string, flow: 'browser' | 'manual', provider = 'chatgpt') =>
    req({
      method: 'PUT',
      path: `/auth/logins/${id}`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ provider, flow, values: {} }),
    })
  /** What the browser does: sign in as `seat` at the issuer, come back with code and state. */
  const browserCode = (login: any, seat: FakeSeat) => {
    const url = new URL(login.url)
    const code = fake.authorize(
      seat,
      url.searchParams.get('code_challenge') as string,
      url.searchParams.get('redirect_uri') as string,
    )
    return { code, state: url.searchParams.get('state') as string }
  }

  before(async () => {
    fake = await FakeChatgptBackend.start()
    port = await freePort()
    const home = tempHome()
    mkdirSync(home, { recursive: true })
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({ providers: { sign_in: { chatgpt: { issuer: fake.url, callback_port: port } } } }),
    )
    d = await startDaemon({ home })
  })
  after(async () => {
    await d.stop()
    await fake.close()
  })

  it('lists chatgpt, claude, antigravity and copilot as signed out with no accounts and no logins', async () => {
    const auth = (await req({ path: '/auth' })).json()
    assert.deepEqual(
      auth.providers.map((p: any) => [p.extension, p.status, p.flows]),
      [
        ['chatgpt', 'signed out', ['browser', 'manual']],
        ['claude', 'signed out', ['browser', 'manual']],
        ['antigravity', 'signed out', ['browser', 'manual']],
        ['copilot', 'signed out', ['device', 'cli']],
      ],
    )
    assert.deepEqual(auth.accounts, [])
    assert.deepEqual(auth.logins, [])
    assert.equal((await req({ path: '/server' })).json().capabilities.provider_auth, 1)
  })

  it('browser flow: 201 with Location and ETag, the callback completes it, the account is saved', async () => {
    const id = uuidv7()
    const created = await put(id, 'browser')
    assert.equal(created.status, 201)
    assert.equal(created.headers.location, `/auth/logins/${id}`)
    assert.ok(created.headers.etag)
    const login = created.json()
    assert.equal(login.state, 'waiting')
    const authorize = new URL(login.url)
    assert.equal(authorize.origin, fake.url)
    assert.equal(authorize.searchParams.get('redirect_uri'), `http://localhost:${port}/auth/callback`)
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256')
    // A repeat with the same intent is the same login (200) and starts nothing new.
    const again = await put(id, 'browser')
    assert.equal(again.status, 200)
    assert.deepEqual(again.json(), login)
    assertProblem(await put(id, 'manual'), 409, 'login_conflict')
    const { code, state } = browserCode(login, ALICE)
    const page = await fetch(`http://127.0.0.1:${port}/auth/callback?code=${code}&state=${state}`)
    assert.equal(page.status, 200)
    const done = (await req({ path: `/auth/logins/${id}` })).json()
    assert.equal(done.state, 'complete')
    assert.equal(done.accounts[0].email, ALICE.email)
    assert.equal(done.accounts[0].plan, 'plus')
    const stored = fileJson(d.home, 'creds.json').accounts.chatgpt
    assert.equal(Array.isArray(stored), false, 'one account is an object')
    assert.equal(stored.account_id, ALICE.accountId)
    assert.ok(stored.access && stored.refresh && stored.expires)
    const auth = (await req({ path: '/auth' })).json()
    assert.equal(auth.providers[0].status, 'signed in')
    assert.deepEqual(
      auth.accounts.map((a: any) => a.id),
      [done.accounts[0].id],
    )
  })

  it('manual flow: PATCH with If-Match and a pasted code#state; another seat is appended, the same replaced', async () => {
    const sign = async (seat: FakeSeat) => {
      const id = uuidv7()
      const created = await put(id, 'manual')
      const { code, state } = browserCode(created.json(), seat)
      assertProblem(
        await req({
          method: 'PATCH',
          path: `/auth/logins/${id}`,
          headers: { 'content-type': 'application/merge-patch+json' },
          body: JSON.stringify({ response: `${code}#${state}` }),
        }),
        428,
        'precondition_required',
      )
      const r = await req({
        method: 'PATCH',
        path: `/auth/logins/${id}`,
        headers: { 'content-type': 'application/merge-patch+json', 'if-match': String(created.headers.etag) },
        body: JSON.stringify({ response: `${code}#${state}` }),
      })
      assert.equal(r.status, 200, r.text())
      assert.equal(r.json().state, 'complete')
      return r.json().accounts[0].id as string
    }
    const bob = await sign(BOB)
    let stored = fileJson(d.home, 'creds.json').accounts.chatgpt
    assert.equal(stored.length, 2, 'two accounts are an array')
    const bobAgain = await sign(BOB)
    assert.equal(bobAgain, bob, 'the same seat keeps its id')
    stored = fileJson(d.home, 'creds.json').accounts.chatgpt
    assert.equal(stored.length, 2, 'the same seat replaced, not appended')
  })

  it('DELETE of a login is idempotent; unknown ids are 404; bad input is refused', async () => {
    const id = uuidv7()
    await put(id, 'browser')
    assert.equal((await req({ method: 'DELETE', path: `/auth/logins/${id}` })).status, 204)
    assert.equal((await req({ method: 'DELETE', path: `/auth/logins/${id}` })).status, 204)
    assert.equal((await req({ path: `/auth/logins/${id}` })).json().state, 'cancelled')
    assertProblem(await req({ path: `/auth/logins/${uuidv7()}` }), 404, 'login_not_found')
    assertProblem(await req({ method: 'DELETE', path: `/auth/logins/${uuidv7()}` }), 404, 'login_not_found')
    assertProblem(await put(uuidv7(), 'browser', 'nobody'), 400, 'unknown_provider')
    const old = '00000000-0000-7000-8000-000000000000'
    assertProblem(await put(old, 'browser'), 410, 'login_expired')
  })

  it('an account bound by a profile cannot be removed; unbound it can, once', async () => {
    const [alice] = (await req({ path: '/auth' })).json().accounts
    await change(d, 'providers', { profiles: { sub: { extension: 'chatgpt', account_id: alice.id } } })
    assertProblem(await req({ method: 'DELETE', path: `/auth/accounts/${alice.id}` }), 409, 'account_in_use')
    await change(d, 'providers', { profiles: { sub: null } })
    assert.equal((await req({ method: 'DELETE', path: `/auth/accounts/${alice.id}` })).status, 204)
    assertProblem(
      await req({ method: 'DELETE', path: `/auth/accounts/${alice.id}` }),
      404,
      'account_not_found',
    )
    const left = fileJson(d.home, 'creds.json').accounts.chatgpt
    assert.equal(Array.isArray(left), false, 'back to one object')
  })

  it('a restart fails an unfinished login with daemon_restarted; a new flow needs a new id', async () => {
    const id = uuidv7()
    await put(id, 'browser')
    await d.stop()
    d = await startDaemon({ home: d.home })
    const after = (await req({ path: `/auth/logins/${id}` })).json()
    assert.equal(after.state, 'failed')
    assert.equal(after.failure, 'daemon_restarted')
    assert.equal((await put(id, 'browser')).status, 200)
  })

  it('no token, code, verifier or refresh token is in any response or the log', async () => {
    const creds = readFileSync(join(d.home, 'creds.json'), 'utf8')
    const secrets: string[] = []
    for (const a of [].concat(JSON.parse(creds).accounts.chatgpt)) {
      const c = a as Record<string, unknown>
      for (const k of ['access', 'refresh', 'id_token'])
        if (typeof c[k] === 'string') secrets.push(c[k] as string)
    }
    for (const t of fake.tokenRequests) {
      for (const k of ['code', 'code_verifier', 'refresh_token']) {
        if (typeof t.body[k] === 'string') secrets.push(t.body[k] as string)
      }
    }
    assert.ok(secrets.length >= 4)
    for (const r of seen) {
      const text = `${JSON.stringify(r.headers)}${r.text()}`
      for (const s of secrets) assert.equal(text.includes(s), false, 'a secret in a response')
    }
    for (const file of readdirSync(join(d.home, 'logs'))) {
      const text = readFileSync(join(d.home, 'logs', file), 'utf8')
      for (const s of secrets) assert.equal(text.includes(s), false, `a secret in ${file}`)
    }
  })
})
