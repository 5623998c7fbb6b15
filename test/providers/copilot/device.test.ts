// The device flow's two POSTs against the fake GitHub over a real socket: the code, each
// kind of poll answer, and the refusals a sign-in fails with.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  COPILOT_EDITOR_CLIENT_ID,
  COPILOT_SCOPE,
  githubUrls,
} from '../../../src/providers/copilot/constants.ts'
import { type DeviceCall, pollDevice, startDevice } from '../../../src/providers/copilot/device.ts'
import { SignInError } from '../../../src/providers/shared/sign-in-plugin.ts'
import { FakeGitHub } from '../../fakes/github.ts'

const octocat = { id: 583231, login: 'octocat', copilot: true }
let gh: FakeGitHub
let clock = 1_767_225_600_000
let call: DeviceCall

before(async () => {
  gh = await FakeGitHub.start()
  gh.now = () => clock
  call = {
    urls: githubUrls(gh.url),
    clientId: COPILOT_EDITOR_CLIENT_ID,
    fetch: globalThis.fetch,
    signal: new AbortController().signal,
  }
})
after(() => gh.close())

async function refusedWith(promise: Promise<unknown>, code: string): Promise<SignInError> {
  const err = await promise.then(
    () => assert.fail('expected a refusal'),
    (e: unknown) => e,
  )
  assert.ok(err instanceof SignInError, String(err))
  assert.equal(err.code, code)
  return err
}

describe('copilot device flow', () => {
  it('asks for a code form-encoded with the client id and read:user', async () => {
    const start = await startDevice(call, COPILOT_SCOPE)
    assert.equal(start.url, `${gh.url}/login/device`)
    assert.deepEqual([start.expiresInMs, start.intervalMs], [900_000, 5_000])
    const sent = gh.requests.at(-1)!
    assert.equal(sent.headers['content-type'], 'application/x-www-form-urlencoded')
    assert.equal(sent.headers.accept, 'application/json')
    assert.deepEqual(Object.fromEntries(new URLSearchParams(sent.body)), {
      client_id: COPILOT_EDITOR_CLIENT_ID,
      scope: 'read:user',
    })
  })

  it('reads pending, slow_down (the answer’s interval) and the token', async () => {
    const start = await startDevice(call, COPILOT_SCOPE)
    assert.deepEqual(await pollDevice(call, start.deviceCode, start.intervalMs), { kind: 'pending' })
    clock += 1_000
    assert.deepEqual(await pollDevice(call, start.deviceCode, start.intervalMs), {
      kind: 'slow_down',
      intervalMs: 10_000,
    })
    gh.approve(start.userCode, octocat)
    clock += 10_000
    const done = await pollDevice(call, start.deviceCode, 10_000)
    assert.equal(done.kind, 'token')
    assert.match(done.kind === 'token' ? done.token : '', /^ghu_/)
    assert.equal(
      gh.requests.at(-1)!.body.includes('grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code'),
      true,
    )
  })

  it('adds five seconds when a slow_down names no interval', async () => {
    const fetchFn: typeof fetch = async () => Response.json({ error: 'slow_down' })
    assert.deepEqual(await pollDevice({ ...call, fetch: fetchFn }, 'dc', 7_000), {
      kind: 'slow_down',
      intervalMs: 12_000,
    })
  })

  it('fails with expired_token, access_denied and GitHub’s other codes', async () => {
    const a = await startDevice(call, COPILOT_SCOPE)
    gh.deny(a.userCode)
    await refusedWith(pollDevice(call, a.deviceCode, 5_000), 'access_denied')
    clock += 10_000
    const b = await startDevice(call, COPILOT_SCOPE)
    gh.expire(b.userCode)
    const expired = await refusedWith(pollDevice(call, b.deviceCode, 5_000), 'expired_token')
    assert.match(expired.message, /start a new sign-in/)
    await refusedWith(pollDevice(call, 'not-a-code', 5_000), 'incorrect_device_code')
  })

  it('refuses an answer with neither a token nor an error', async () => {
    const fetchFn: typeof fetch = async () => Response.json({ token_type: 'bearer' })
    await refusedWith(pollDevice({ ...call, fetch: fetchFn }, 'dc', 5_000), 'invalid_response')
    await refusedWith(startDevice({ ...call, fetch: fetchFn }, COPILOT_SCOPE), 'invalid_response')
  })
})

describe('githubUrls', () => {
  it('puts the REST API on api.github.com, api.<host> for enterprise, /api for a base URL', () => {
    assert.equal(githubUrls('github.com').api, 'https://api.github.com')
    assert.deepEqual(githubUrls('Octocorp.ghe.com'), {
      deviceCode: 'https://octocorp.ghe.com/login/device/code',
      accessToken: 'https://octocorp.ghe.com/login/oauth/access_token',
      api: 'https://api.octocorp.ghe.com',
    })
    assert.equal(githubUrls('http://127.0.0.1:9/').api, 'http://127.0.0.1:9/api')
  })
})
