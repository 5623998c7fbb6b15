// The fake GitHub answers the device flow, the REST calls and the Copilot token exchange
// as docs/providers.md ("copilot") says GitHub does; the Copilot sign-in's tests rely on it.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { EDITOR_CLIENT_ID, FakeGitHub, type FakeGitHubAccount } from './github.ts'

const octocat: FakeGitHubAccount = { id: 583231, login: 'octocat', copilot: true }

let gh: FakeGitHub
let clock = 1_767_225_600_000

before(async () => {
  gh = await FakeGitHub.start()
  gh.now = () => clock
})
after(() => gh.close())

const form = (params: Record<string, string>) => ({
  method: 'POST',
  headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(params).toString(),
})

async function post(path: string, params: Record<string, string>) {
  const res = await fetch(`${gh.url}${path}`, form(params))
  return { status: res.status, body: (await res.json()) as Record<string, any> }
}

async function startDevice(clientId = EDITOR_CLIENT_ID) {
  const { status, body } = await post('/login/device/code', { client_id: clientId, scope: 'read:user' })
  assert.equal(status, 200)
  return body
}

function poll(deviceCode: string, clientId = EDITOR_CLIENT_ID) {
  return post('/login/oauth/access_token', {
    client_id: clientId,
    device_code: deviceCode,
    grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
  })
}

async function get(path: string, token: string, scheme = 'token') {
  const res = await fetch(`${gh.url}${path}`, { headers: { authorization: `${scheme} ${token}` } })
  return { status: res.status, body: (await res.json()) as Record<string, any> }
}

describe('fake GitHub device flow', () => {
  it('hands out a code, waits, slows a hasty poller down, then issues a token once', async () => {
    const device = await startDevice()
    assert.match(device.user_code, /^[A-Z]{4}-[A-Z]{4}$/)
    assert.equal(device.verification_uri, `${gh.url}/login/device`)
    assert.deepEqual([device.expires_in, device.interval], [900, 5])

    assert.equal((await poll(device.device_code)).body.error, 'authorization_pending')
    clock += 1000
    const slow = await poll(device.device_code)
    assert.deepEqual(slow, { status: 200, body: { error: 'slow_down', interval: 10 } })
    clock += 10_000
    assert.equal((await poll(device.device_code)).body.error, 'authorization_pending')

    gh.approve(device.user_code, octocat)
    clock += 10_000
    const done = await poll(device.device_code)
    assert.equal(done.status, 200)
    assert.match(done.body.access_token, /^ghu_/)
    assert.deepEqual([done.body.token_type, done.body.scope], ['bearer', 'read:user'])
    clock += 10_000
    assert.equal((await poll(device.device_code)).body.error, 'incorrect_device_code')
  })

  it('answers a scripted slow_down, a denial, an expiry and a wrong client', async () => {
    const a = await startDevice()
    gh.slowDowns = 1
    assert.deepEqual((await poll(a.device_code)).body, { error: 'slow_down', interval: 10 })
    clock += 10_000
    gh.deny(a.user_code)
    assert.equal((await poll(a.device_code)).body.error, 'access_denied')

    const b = await startDevice()
    clock += 901_000
    assert.equal((await poll(b.device_code)).body.error, 'expired_token')

    const c = await startDevice()
    gh.expire(c.user_code)
    assert.equal((await poll(c.device_code)).body.error, 'expired_token')
    assert.equal((await poll(c.device_code, 'Ov23-other')).body.error, 'incorrect_client_credentials')
    const wrongGrant = await post('/login/oauth/access_token', {
      client_id: EDITOR_CLIENT_ID,
      device_code: c.device_code,
      grant_type: 'authorization_code',
    })
    assert.equal(wrongGrant.body.error, 'unsupported_grant_type')
  })

  it('takes a JSON body as opencode sends it', async () => {
    const res = await fetch(`${gh.url}/login/device/code`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: 'Ov23li8tweQw6odWQebz', scope: 'read:user' }),
    })
    assert.equal(res.status, 200)
    assert.ok(((await res.json()) as { device_code?: string }).device_code)
  })
})

describe('fake GitHub API and Copilot token exchange', () => {
  it('names the account, reads its usage and exchanges its token for a Copilot token', async () => {
    const token = gh.issue(octocat)
    assert.deepEqual((await get('/api/user', token)).body.login, 'octocat')
    const usage = await get('/api/copilot_internal/user', token)
    assert.equal(usage.body.quota_snapshots.premium_interactions.percent_remaining, 90)

    const exchanged = await get('/api/copilot_internal/v2/token', token, 'Bearer')
    assert.equal(exchanged.status, 200)
    assert.equal(exchanged.body.expires_at, Math.floor(clock / 1000) + 1800)
    assert.equal(exchanged.body.endpoints.api, gh.copilotUrl)
    assert.match(exchanged.body.token, new RegExp(`proxy-ep=${new URL(gh.copilotUrl).host};`))
    assert.ok(gh.copilotTokenLive(exchanged.body.token))

    const models = await get('/copilot/models', exchanged.body.token, 'Bearer')
    assert.equal(models.status, 200)
    assert.deepEqual(
      models.body.data.map((m: any) => [m.id, m.supported_endpoints]),
      [
        ['gpt-5.2-codex', ['/responses']],
        ['gpt-4.1', ['/chat/completions']],
      ],
    )
    clock += 1_800_000
    assert.equal((await get('/copilot/models', exchanged.body.token, 'Bearer')).status, 401)
  })

  it('refuses revoked tokens, other apps at the exchange, and accounts without Copilot', async () => {
    const token = gh.issue(octocat)
    gh.revoke(token)
    assert.equal((await get('/api/user', token)).status, 401)

    const other = gh.issue(octocat, 'Ov23li8tweQw6odWQebz')
    assert.equal((await get('/api/copilot_internal/v2/token', other)).status, 403)
    assert.equal((await get('/copilot/models', other, 'Bearer')).status, 401)
    gh.directClients.add('Ov23li8tweQw6odWQebz')
    assert.equal((await get('/copilot/models', other, 'Bearer')).status, 200)

    const plain = gh.issue({ id: 2, login: 'plain', copilot: false })
    assert.equal((await get('/api/copilot_internal/v2/token', plain)).status, 404)
    assert.equal((await get('/api/copilot_internal/user', plain)).status, 404)
  })
})
