// `hearth login`, `hearth accounts`, `hearth logout` against a running daemon whose chatgpt
// sign-in points at a fake issuer: the URL is printed (HEARTH_NO_BROWSER), a pasted
// `code#state` finishes the login, and the account is listed and removed.
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { freePort } from '../auth/oidc-peer.ts'
import { FakeChatgptBackend } from '../fakes/chatgpt-backend.ts'
import { runCli, startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'
import { startLogin } from './login-child.ts'

describe('hearth login, accounts, logout', () => {
  let fake: FakeChatgptBackend
  let d: TestDaemon
  before(async () => {
    fake = await FakeChatgptBackend.start()
    const home = tempHome()
    mkdirSync(home, { recursive: true })
    const port = await freePort()
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

  it('prints the URL, takes a pasted code#state, and reports who signed in', async () => {
    const login = await startLogin(d.home, 'chatgpt', /(http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\S+)/)
    const { url } = login
    const code = fake.authorize(
      { accountId: 'ws-cli', userId: 'u-cli', email: 'cli@example.test' },
      url.searchParams.get('code_challenge') as string,
      url.searchParams.get('redirect_uri') as string,
    )
    login.paste(`${code}#${url.searchParams.get('state')}`)
    const exit = await login.exited
    const stdout = login.stdout()
    const stderr = login.stderr()
    assert.equal(exit, 0, stderr)
    assert.match(stdout, /Signed in to chatgpt as cli@example\.test/)
    assert.equal(stdout.includes(code), false, 'the code is never echoed')

    const listed = await runCli(['accounts', '--home', d.home])
    assert.equal(listed.code, 0, listed.stderr)
    assert.match(listed.stdout, /ChatGPT \(chatgpt\): signed in/)
    const id = /(chatgpt-[0-9a-f]+)/.exec(listed.stdout)?.[1] as string
    assert.ok(id)
    const out = await runCli(['logout', id, '--home', d.home])
    assert.equal(out.code, 0, out.stderr)
    const again = await runCli(['logout', id, '--home', d.home])
    assert.equal(again.code, 1)
    assert.match(again.stderr, /account_not_found/)
  })
})
