// The copilot plugin as the accounts code reads it: the GitHub token is the refresh token,
// so an account without one is not refreshable and reads signed out once its Copilot token
// expired; a revoked one is the field forgotten.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { describeAccount, isSignedIn, refreshTokenOf } from '../../../src/auth/accounts.ts'
import { copilotSignIn } from '../../../src/providers/copilot/signin.ts'

const plugin = copilotSignIn({ clientId: 'Iv1.test', host: 'github.com' })
const now = 1_767_225_600_000
const account = {
  type: 'oauth',
  github: 'ghu_abcdefgh',
  access: 'tid=x',
  expires: now - 1,
  host: 'github.com',
  user_id: 7,
  login: 'mona',
}

describe('copilot sign-in plugin as an account plugin', () => {
  it('names the GitHub token as the refresh token', () => {
    assert.equal(refreshTokenOf(plugin, account), 'ghu_abcdefgh')
    assert.equal(describeAccount(plugin, account, now).refreshable, true)
    assert.equal(isSignedIn(plugin, account, now), true, 'an expired Copilot token is refreshed')
    assert.deepEqual(plugin.refreshFields, ['github'])
    assert.equal(plugin.forgetRevokedRefresh, true)
  })

  it('an account without its GitHub token is not refreshable and reads signed out once expired', () => {
    const { github: _, ...without } = account
    assert.equal(refreshTokenOf(plugin, without), null)
    assert.equal(describeAccount(plugin, without, now).refreshable, false)
    assert.equal(isSignedIn(plugin, without, now), false)
    assert.equal(isSignedIn(plugin, { ...without, expires: now + 60_000 }, now), true)
  })
})
