// The terminal client and an MCP server that needs a sign-in, in a real terminal: tmux runs
// `hearth chat` against a real daemon whose session loads a remote server (the SDK's) that
// refuses hearth; the transcript says so once with /mcp-login, which opens the login screen
// on the server's sign-in (discovered by the daemon from the server's 401). Esc cancels it;
// signed in through the browser's redirect to the daemon's loopback callback, the next
// message starts the server with its token and its tool answers.
import assert from 'node:assert/strict'
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { answer, callTools, toolResultsOf } from '../fakes/tool-script.ts'
import { BIN, tempHome } from '../helpers/daemon.ts'
import { Tmux } from '../helpers/tmux.ts'
import { change } from '../settings/helpers.ts'
import { type AgentSetup, newSession, startAgent } from '../tools/agent-helpers.ts'
import { SignedInMcpServer } from './signed-in-server.ts'
import { TokenServer } from './token-server.ts'

const ready = (screen: string) => /idle · /.test(screen) && screen.includes('──────')
const flat = (screen: string) => screen.replace(/\s+/g, ' ')
const NOTICE = 'MCP server bare needs a sign-in: /mcp-login bare signs in'
const SIGNED_IN_TOKEN = 'tui-access-9e2b4d6f8a1c'

describe('the terminal client offers the sign-in of an MCP server that needs one', () => {
  let s: AgentSetup
  let server: SignedInMcpServer
  let as: TokenServer
  let bin: string
  let opened: string
  let sid: string
  const terminals: Tmux[] = []
  const open = (env: Record<string, string> = {}) => {
    const vars = Object.entries({ PATH: `${bin}:${process.env.PATH}`, HEARTH_NO_BROWSER: '', ...env })
    const t = Tmux.start(
      ['env', ...vars.map(([k, v]) => `${k}=${v}`), process.execPath, BIN, '--home', s.d.home, 'chat', sid],
      { columns: 120, rows: 40, cwd: s.workspace },
    )
    terminals.push(t)
    return t
  }
  const logins = async () => (await s.d.request({ path: '/auth' })).json().logins as unknown[]

  before(async () => {
    server = await SignedInMcpServer.start()
    as = await TokenServer.start()
    server.authorizationServer = as.url
    as.onIssued = (token) => server.accepted.add(token)
    // The session keeps its kernel (and what it loaded) between the tests.
    s = await startAgent({ tools: { approval_policy: 'auto' }, env: { HEARTH_KERNEL_IDLE_MS: '600000' } })
    await change(s.d, 'mcp', { servers: { bare: { url: server.url } } })
    sid = await newSession(s)
    bin = join(tempHome('hearth-browser-'), 'bin')
    mkdirSync(bin, { recursive: true })
    opened = join(bin, 'opened')
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened}'\n`)
    chmodSync(join(bin, 'xdg-open'), 0o755)
  })
  after(async () => {
    for (const t of terminals) t.kill()
    await s.d.stop()
    await s.upstream.close()
    await server.close()
    await as.close()
  })

  it('says so once, /mcp-login shows the address, Esc cancels the login', async () => {
    const t = open({ HEARTH_NO_BROWSER: '1' })
    await t.waitFor(ready, 'the prompt')
    s.upstream.enqueue(answer('hello without it'))
    t.type('hello')
    t.keys('Enter')
    let screen = await t.waitFor(
      (x) => flat(x).includes(NOTICE) && x.includes('hello without it'),
      'the notice',
      30_000,
    )
    assert.equal(flat(screen).split(NOTICE).length, 2, 'said once')

    t.type('/mcp-login')
    t.keys('Enter')
    screen = await t.waitFor((x) => x.includes('HEARTH_NO_BROWSER is set'), 'the sign-in under way', 30_000)
    assert.match(screen, /Sign in to .*bare/)
    assert.ok(screen.includes(`${as.url}/authorize`), 'the authorization address is shown')
    assert.equal((await logins()).length, 1)
    t.keys('Escape')
    await t.waitFor((x) => ready(x) && !x.includes('Sign in to'), 'back in the chat')
    const deadline = Date.now() + 30_000
    while ((await logins()).length > 0) {
      assert.ok(Date.now() < deadline, 'the login was cancelled')
      await new Promise((r) => setTimeout(r, 50))
    }
    assert.equal(existsSync(opened), false, 'no browser was started')
  })

  it('signed in through the browser, the next message starts the server and its tool answers', async () => {
    rmSync(opened, { force: true })
    const t = open()
    await t.waitFor((x) => ready(x) && flat(x).includes(NOTICE), 'the notice of the session opened')
    t.type('/mcp-login bare')
    t.keys('Enter')
    await t.waitFor((x) => x.includes('opened in the browser'), 'the sign-in under way', 30_000)
    const address = new URL(readFileSync(opened, 'utf8').trim().split('\n')[0])
    assert.equal(address.origin + address.pathname, `${as.url}/authorize`)
    assert.equal(address.searchParams.get('resource'), server.url, 'the resource indicator')
    assert.equal(address.searchParams.get('code_challenge_method'), 'S256')
    // The person agrees; the browser follows the redirect to the daemon's loopback callback.
    as.next.push(SIGNED_IN_TOKEN)
    const callback = new URL(address.searchParams.get('redirect_uri') as string)
    callback.searchParams.set('code', as.authorize(address))
    callback.searchParams.set('state', address.searchParams.get('state') as string)
    await (await fetch(callback)).text()
    await t.waitFor((x) => x.includes('signed in'), 'the sign-in done', 30_000)
    t.keys('Enter')
    await t.waitFor((x) => ready(x) && !x.includes('Sign in to'), 'back in the chat')

    s.upstream.reset()
    s.upstream.enqueue(
      callTools({ name: 'mcp__bare__echo', arguments: { text: 'signed' } }),
      answer('all done'),
    )
    t.type('use the server')
    t.keys('Enter')
    await t.waitFor((x) => x.includes('all done'), 'the answer', 30_000)
    assert.equal(toolResultsOf(s.upstream.requests[1].body).at(-1)?.output, 'echo: signed')
    assert.equal(server.authorizations.at(-1), `Bearer ${SIGNED_IN_TOKEN}`)
    assert.ok(!t.screen().includes(SIGNED_IN_TOKEN))
  })
})
