// Sign-in through `hearth acp`, against the real daemon and the fake ChatGPT backend (its
// OAuth issuer): initialize offers hearth's sign-ins as auth methods (terminal ones only to
// an editor that runs them), session/new answers auth required while the default profile's
// provider has no account, and `authenticate` runs the browser sign-in (the test plays the
// browser: it signs in at the fake issuer and comes back to the daemon's callback) after
// which a session can be made.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { methods } from '@agentclientprotocol/sdk'
import { FakeChatgptBackend, type FakeSeat } from '../fakes/chatgpt-backend.ts'
import { startChatgptDaemon } from '../helpers/chatgpt-signin.ts'
import { runCli, type TestDaemon } from '../helpers/daemon.ts'
import { type Editor, rpcError, startEditor } from './editor.ts'

const SEAT: FakeSeat = { accountId: 'ws-acp', userId: 'user-acp', email: 'acp@example.test', plan: 'plus' }

describe('sign-in through the editor', () => {
  let fake: FakeChatgptBackend
  let d: TestDaemon
  let editor: Editor
  before(async () => {
    fake = await FakeChatgptBackend.start()
    d = await startChatgptDaemon(fake)
    editor = await startEditor(d.home)
  })
  after(async () => {
    await editor?.close()
    await d.stop()
    await fake.close()
  })

  it('initialize offers the sign-ins; terminal ones only to an editor that runs them', async () => {
    const init = await editor.agent.request(methods.agent.initialize, { protocolVersion: 1 })
    const chatgpt = init.authMethods?.find((m) => m.id === 'chatgpt')
    assert.ok(chatgpt, JSON.stringify(init.authMethods))
    assert.ok(!init.authMethods?.some((m) => 'type' in m && m.type === 'terminal'))
    const terminal = await startEditor(d.home, { clientCapabilities: { auth: { terminal: true } } })
    try {
      const again = await terminal.agent.request(methods.agent.initialize, {
        protocolVersion: 1,
        clientCapabilities: { auth: { terminal: true } },
      })
      const method: any = again.authMethods?.find((m) => m.id === 'chatgpt-terminal')
      assert.equal(method?.type, 'terminal')
      assert.deepEqual(method.args, ['--login', 'chatgpt'])
    } finally {
      await terminal.close()
    }
  })

  it('a new session needs a sign-in; authenticate runs it in the browser, then sessions can be made', async () => {
    const refused = await rpcError(
      editor.agent.request(methods.agent.session.new, { cwd: d.home, mcpServers: [] }),
    )
    assert.equal(refused.code, -32000, refused.message)
    const bad = await rpcError(editor.agent.request(methods.agent.authenticate, { methodId: 'nowhere' }))
    assert.equal(bad.code, -32602)

    const signedIn = editor.agent.request(methods.agent.authenticate, { methodId: 'chatgpt' })
    // The browser: the login's URL is on stderr; sign in there and come back to the callback.
    const url = await editor.waitFor('the sign-in URL', () => {
      const m = /https?:\/\/\S+code_challenge=\S+/.exec(editor.stderr)
      return m ? new URL(m[0]) : undefined
    })
    const redirect = url.searchParams.get('redirect_uri') as string
    const code = fake.authorize(SEAT, url.searchParams.get('code_challenge') as string, redirect)
    const back = await fetch(`${redirect}?code=${code}&state=${url.searchParams.get('state')}`)
    assert.equal(back.status, 200)
    assert.deepEqual(await signedIn, {})
    const { sessionId } = await editor.agent.request(methods.agent.session.new, {
      cwd: d.home,
      mcpServers: [],
    })
    assert.ok(sessionId)
  })

  it('hearth acp --login runs hearth login (an unknown provider fails as it does)', async () => {
    const r = await runCli(['acp', '--login', 'nowhere', '--home', d.home], { HEARTH_NO_BROWSER: '1' })
    assert.equal(r.code, 1, r.stderr)
    assert.doesNotMatch(r.stderr, /unknown option/, 'the sign-in ran, not the agent')
    assert.match(r.stderr + r.stdout, /nowhere/)
  })
})
