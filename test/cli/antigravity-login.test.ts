// `hearth login antigravity` against a daemon whose Google is the fake: the policy is
// printed before the sign-in starts, and an account that needs verification ends the
// command with the verification page to open.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { FakeAntigravityBackend, VERIFY_URL } from '../fakes/antigravity-backend.ts'
import { startDaemon, type TestDaemon } from '../helpers/daemon.ts'
import { startLogin } from './login-child.ts'

describe('hearth login antigravity', () => {
  let fake: FakeAntigravityBackend
  let d: TestDaemon
  before(async () => {
    fake = await FakeAntigravityBackend.start()
    d = await startDaemon({
      env: {
        HEARTH_ANTIGRAVITY_TOKEN_URL: fake.tokenUrl,
        HEARTH_ANTIGRAVITY_BASE_URL: fake.url,
        HEARTH_ANTIGRAVITY_VERSION: '1.0.0',
      },
    })
  })
  after(async () => {
    await d.stop()
    await fake.close()
  })

  it('states the policy first; a verification-required account fails with its page', async () => {
    const login = await startLogin(
      d.home,
      'antigravity',
      /(https:\/\/accounts\.google\.com\/o\/oauth2\/v2\/auth\S+)/,
    )
    const { url } = login
    const printed = login.stdout()
    const policy = printed.indexOf('terms forbid')
    assert.ok(policy >= 0 && policy < printed.indexOf(url.toString()), printed)
    assert.match(printed.slice(0, printed.indexOf(url.toString())), /vertex/i)
    const code = fake.authorize(
      { email: 'new@example.com', project: null, verify: 'tier' },
      url.searchParams.get('code_challenge') as string,
      url.searchParams.get('redirect_uri') as string,
    )
    login.paste(`${code}#${url.searchParams.get('state')}`)
    const exit = await login.exited
    const stdout = login.stdout()
    const stderr = login.stderr()
    assert.equal(exit, 1, stdout)
    assert.match(stderr, /verification_required/)
    assert.ok(stdout.includes(VERIFY_URL), stdout)
    assert.equal(stdout.includes(code), false, 'the code is never echoed')
  })
})
