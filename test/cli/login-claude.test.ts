// `hearth login claude` against a daemon whose claude token URL is the fake's
// (HEARTH_CLAUDE_TOKEN_URL): Anthropic's terms note is printed before the URL, and a
// pasted `code#state` finishes the sign-in.
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { freePort } from '../auth/oidc-peer.ts'
import { FakeClaudeAuth } from '../fakes/claude-auth.ts'
import { startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'
import { startLogin } from './login-child.ts'

describe('hearth login claude', () => {
  let auth: FakeClaudeAuth
  let d: TestDaemon
  before(async () => {
    auth = await FakeClaudeAuth.start()
    const home = tempHome()
    mkdirSync(home, { recursive: true })
    const port = await freePort()
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({ providers: { sign_in: { claude: { callback_port: port } } } }),
    )
    d = await startDaemon({ home, env: { HEARTH_CLAUDE_TOKEN_URL: auth.tokenUrl } })
  })
  after(async () => {
    await d.stop()
    await auth.close()
  })

  it("prints Anthropic's terms before the URL, then takes a pasted code#state", async () => {
    const login = await startLogin(d.home, 'claude', /(https:\/\/claude\.ai\/oauth\/authorize\S+)/)
    const { url } = login
    const printed = login.stdout()
    const policy = printed.indexOf('only in Claude Code and Claude.ai')
    assert.ok(policy >= 0 && policy < printed.indexOf('https://claude.ai/'), printed)
    assert.match(printed, /Amazon Bedrock/)
    const code = auth.authorize(
      { uuid: 'acc-cli', email: 'cli@example.test' },
      url.searchParams.get('code_challenge') as string,
      url.searchParams.get('redirect_uri') as string,
      url.searchParams.get('state') as string,
    )
    login.paste(`${code}#${url.searchParams.get('state')}`)
    const exit = await login.exited
    const stdout = login.stdout()
    const stderr = login.stderr()
    assert.equal(exit, 0, stderr)
    assert.match(stdout, /Signed in to claude as cli@example\.test/)
    assert.equal(stdout.includes(code), false, 'the code is never echoed')
  })
})
