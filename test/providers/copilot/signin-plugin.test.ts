// The copilot plugin as the accounts code reads it: the GitHub token is the refresh token,
// so an account without one is not refreshable and reads signed out once its Copilot token
// expired; a revoked one (the exchange answers 401) is forgotten by the pool's refresh.
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import {
  describeAccount,
  isSignedIn,
  listAccounts,
  refreshTokenOf,
  saveAccount,
} from '../../../src/auth/accounts.ts'
import { lockedFiles } from '../../../src/auth/accounts-store.ts'
import { AccountPool } from '../../../src/auth/pool.ts'
import { copilotSignIn } from '../../../src/providers/copilot/signin.ts'
import { CredentialLock } from '../../../src/settings/lock.ts'
import { FakeGitHub } from '../../fakes/github.ts'

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

  it('a refresh the exchange refuses with 401 forgets the GitHub token: the account reads signed out', async () => {
    const gh = await FakeGitHub.start()
    process.env.HEARTH_COPILOT_GITHUB_URL = gh.url
    try {
      const home = mkdtempSync(join(tmpdir(), 'hearth-copilot-pool-'))
      writeFileSync(join(home, 'creds.json'), '{}')
      const store = lockedFiles(home, new CredentialLock())
      const live = copilotSignIn({ clientId: 'Iv1.test', host: 'github.com' })
      const github = gh.issue({ id: 7, login: 'mona', copilot: true })
      await saveAccount(store, live, { ...account, github, expires: Date.now() - 1 })
      gh.revoke(github)
      await assert.rejects(
        new AccountPool({ settings: store, plugin: live }).credentialFor({ sessionId: 's' }),
        /run \/login/,
      )
      const [stored] = listAccounts(store.files(), 'copilot')
      assert.equal(stored.github, undefined, 'the revoked token is gone')
      assert.equal(stored.login, 'mona', 'the account stays, signed out')
      assert.equal(isSignedIn(live, stored, Date.now()), false)
    } finally {
      await gh.close()
    }
  })
})
