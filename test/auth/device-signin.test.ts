// The device flow run by a real daemon against the fake GitHub over a real socket: the code
// on the login resource, the poll loop (pending, slow_down, approval), the refusals, the
// code's deadline, cancellation, the flow checks, the eight-login limit and a restart. The
// fake's interval is a fraction of a second; every wait is on the login's state or on the
// fake's recorded polls.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, beforeEach, describe, it } from 'node:test'
import { v7 as uuidv7 } from 'uuid'
import { FakeGitHub } from '../fakes/github.ts'
import { logText, type RawResponse, startDaemon, type TestDaemon, until } from '../helpers/daemon.ts'

const OCTOCAT = { id: 583231, login: 'octocat', copilot: true }
const POLL = '/login/oauth/access_token'

describe('copilot device sign-in through the daemon', () => {
  let gh: FakeGitHub
  let d: TestDaemon
  const seen: RawResponse[] = []
  const env = () => gh.daemonEnv()
  const req = async (r: Parameters<TestDaemon['request']>[0]) => {
    const res = await d.request(r)
    seen.push(res)
    return res
  }
  const put = (flow = 'device', provider = 'copilot', id = uuidv7()) =>
    req({
      method: 'PUT',
      path: `/auth/logins/${id}`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ provider, flow, values: {} }),
    })
  const get = async (id: string) => (await req({ path: `/auth/logins/${id}` })).json()
  const cancel = (id: string) => req({ method: 'DELETE', path: `/auth/logins/${id}` })
  /** Reads the login until `done` holds (a deadline, no fixed sleep). */
  const waitFor = async (id: string, done: (l: any) => boolean, what: string) => {
    const deadline = Date.now() + 20_000
    for (;;) {
      const l = await get(id)
      if (done(l)) return l
      if (Date.now() > deadline) throw new Error(`${what}: the login stayed ${JSON.stringify(l)}`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }
  const ended = (id: string) => waitFor(id, (l) => !['waiting', 'exchanging'].includes(l.state), 'the end')
  /** The polls carrying this device code. */
  const pollsOf = (deviceCode: string) =>
    gh.requests.filter(
      (r) => r.path === POLL && new URLSearchParams(r.body).get('device_code') === deviceCode,
    )
  const userCodeIn = (login: any) => /enter the code ([A-Z]{4}-[A-Z]{4})/.exec(login.instructions)?.[1]
  const deviceCodeOf = (login: any) => gh.deviceCodeOf(userCodeIn(login) as string)

  before(async () => {
    gh = await FakeGitHub.start()
    gh.interval = 0.05
    gh.slowDownStep = 0.3
    d = await startDaemon({ env: env() })
  })
  beforeEach(() => {
    gh.interval = 0.05
    gh.expiresIn = 900
    gh.slowDowns = 0
  })
  after(async () => {
    await d.stop()
    await gh.close()
  })

  it('GET /auth offers copilot with the device and cli flows and states the policy', async () => {
    const { providers } = (await req({ path: '/auth' })).json()
    const copilot = providers.find((p: any) => p.extension === 'copilot')
    assert.equal(copilot.protocol, 'oauth2_device')
    assert.deepEqual(copilot.flows, ['device', 'cli'])
    assert.match(copilot.detail, /GitHub's terms cover Copilot in its editors and tools/)
    assert.match(copilot.detail, /does not document for other programs/)
    assert.match(copilot.detail, /counts against your Copilot plan's quota/)
  })

  it('shows the code and URL, polls at the interval, saves the account once GitHub approves', async () => {
    const before = Date.now()
    const res = await put()
    assert.equal(res.status, 201, res.text())
    const login = res.json()
    assert.equal(login.state, 'waiting')
    assert.equal(login.flow, 'device')
    assert.equal(login.url, `${gh.url}/login/device`)
    const userCode = userCodeIn(login)
    assert.equal(userCode, gh.userCodes.at(-1), login.instructions)
    assert.match(login.instructions, new RegExp(`^Open ${gh.url}/login/device and enter the code`))
    const expires = Date.parse(login.expires_at)
    assert.ok(expires >= before + 900_000 && expires <= Date.now() + 900_000, login.expires_at)
    assert.equal((await req({ path: '/auth' })).json().logins.length, 1)

    // Pending polls first, then the person approves.
    const deviceCode = deviceCodeOf(login)
    await until('two pending polls', () => pollsOf(deviceCode).length >= 2, 20_000, 10)
    gh.approve(userCode as string, OCTOCAT)
    const done = await ended(login.id)
    assert.equal(done.state, 'complete', JSON.stringify(done))
    assert.equal(done.accounts[0].label, 'octocat')
    assert.equal(done.accounts[0].refreshable, true)
    assert.ok(done.accounts[0].expires_at, 'the Copilot token expires')

    const polls = pollsOf(deviceCode)
    for (let i = 1; i < polls.length; i++)
      assert.ok(polls[i].at - polls[i - 1].at >= 50, 'never sooner than the interval')

    const auth = (await req({ path: '/auth' })).json()
    assert.equal(auth.providers.find((p: any) => p.extension === 'copilot').status, 'signed in')
    assert.equal(auth.accounts.find((a: any) => a.provider === 'copilot').label, 'octocat')
    assert.equal(auth.logins.length, 0)
    const creds = JSON.parse(readFileSync(join(d.home, 'creds.json'), 'utf8'))
    assert.equal(creds.accounts.copilot.login, 'octocat')
    assert.match(creds.accounts.copilot.github, /^ghu_/)

    // The device code was never shown: not in a response, the log, or the state.
    const log = logText(d.home)
    for (const r of seen) assert.equal(r.text().includes(deviceCode), false, 'not in a response')
    assert.equal(log.includes(deviceCode), false, 'not in the log')
    assert.equal(log.includes(creds.accounts.copilot.github), false, 'no token in the log')
  })

  it('slow_down: the loop takes the longer interval GitHub names', async () => {
    gh.slowDowns = 1
    const login = (await put()).json()
    const deviceCode = deviceCodeOf(login)
    // After the slow_down (interval 0.05 + 0.3 s), the next polls come that much later.
    await until('two polls after the slow_down', () => pollsOf(deviceCode).length >= 3, 20_000, 10)
    const polls = pollsOf(deviceCode)
    assert.ok(polls[2].at - polls[1].at >= 350, `${polls[2].at - polls[1].at} ms`)
    gh.approve(userCodeIn(login) as string, OCTOCAT)
    assert.equal((await ended(login.id)).state, 'complete')
  })

  it('a denied code fails provider_refused; an expired one timed_out', async () => {
    const denied = (await put()).json()
    gh.deny(userCodeIn(denied) as string)
    const a = await ended(denied.id)
    assert.deepEqual([a.state, a.failure], ['failed', 'provider_refused'])

    const expired = (await put()).json()
    gh.expire(userCodeIn(expired) as string)
    const b = await ended(expired.id)
    assert.deepEqual([b.state, b.failure], ['failed', 'timed_out'])
  })

  it("the code's deadline ends the login timed_out, whether or not a poll came", async () => {
    gh.expiresIn = 1
    gh.interval = 30 // no poll before the deadline
    const before = gh.requests.filter((r) => r.path === POLL).length
    const login = (await put()).json()
    assert.ok(Date.parse(login.expires_at) - Date.now() <= 1000, login.expires_at)
    const done = await ended(login.id)
    assert.deepEqual([done.state, done.failure], ['failed', 'timed_out'])
    assert.equal(gh.requests.filter((r) => r.path === POLL).length, before, 'no poll was due')
  })

  it('DELETE cancels a device login and its polling stops', async () => {
    const first = (await put()).json()
    const code = deviceCodeOf(first)
    await until('a poll', () => pollsOf(code).length >= 1, 20_000, 10)
    assert.equal((await cancel(first.id)).status, 204)
    assert.equal((await get(first.id)).state, 'cancelled')
    const polled = pollsOf(code).length
    // A second login polls on; the first one's count stays (one poll may have been on its way).
    const second = (await put()).json()
    const other = deviceCodeOf(second)
    await until('the second login polled four times', () => pollsOf(other).length >= 4, 20_000, 10)
    assert.ok(pollsOf(code).length <= polled + 1, 'the cancelled login stopped polling')
    await cancel(second.id)
  })

  it('PATCH on a device login is refused: it finishes by itself', async () => {
    const login = await put()
    const res = await req({
      method: 'PATCH',
      path: `/auth/logins/${login.json().id}`,
      headers: { 'content-type': 'application/merge-patch+json', 'if-match': String(login.headers.etag) },
      body: JSON.stringify({ response: 'some-code' }),
    })
    assert.equal(res.status, 400)
    assert.equal(res.json().code, 'invalid_login_response')
    assert.match(res.json().detail, /finishes by itself/)
    await cancel(login.json().id)
  })

  it('a flow the provider does not offer is 422 flow_not_offered', async () => {
    for (const [flow, provider] of [
      ['browser', 'copilot'],
      ['manual', 'copilot'],
      ['device', 'chatgpt'],
      ['cli', 'claude'],
    ]) {
      const res = await put(flow, provider)
      assert.equal(res.status, 422, `${flow} ${provider}: ${res.text()}`)
      assert.equal(res.json().code, 'flow_not_offered')
    }
    assert.equal((await req({ path: '/auth' })).json().logins.length, 0)
  })

  it('device logins count toward the eight unfinished logins', async () => {
    gh.interval = 30
    const ids: string[] = []
    for (let i = 0; i < 8; i++) ids.push((await put()).json().id)
    const ninth = await put()
    assert.equal(ninth.status, 429)
    assert.equal(ninth.json().code, 'too_many_logins')
    for (const id of ids) await cancel(id)
    const tenth = await put()
    assert.equal(tenth.status, 201)
    await cancel(tenth.json().id)
  })

  it('a repeat PUT answers the same login and asks GitHub for no second code', async () => {
    const id = uuidv7()
    const asked = () => gh.requests.filter((r) => r.path === '/login/device/code').length
    const before = asked()
    const [a, b] = await Promise.all([put('device', 'copilot', id), put('device', 'copilot', id)])
    assert.deepEqual([a.status, b.status].sort(), [200, 201])
    assert.equal(a.json().instructions, b.json().instructions)
    assert.equal(asked(), before + 1)
    await cancel(id)
  })

  it('a restart fails the unfinished device login daemon_restarted; GitHub unreachable fails the next at once', async () => {
    gh.interval = 30
    const login = (await put()).json()
    await d.stop()
    d = await startDaemon({ home: d.home, env: { HEARTH_COPILOT_GITHUB_URL: 'http://127.0.0.1:9' } })
    const after = await get(login.id)
    assert.deepEqual([after.state, after.failure], ['failed', 'daemon_restarted'])

    const res = await put()
    assert.equal(res.status, 201, res.text())
    assert.deepEqual([res.json().state, res.json().failure], ['failed', 'unreachable'])
    assert.equal(res.json().url, '')
    await d.stop()
    d = await startDaemon({ home: d.home, env: env() })
  })
})
