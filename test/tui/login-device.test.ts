// The login screen's device and cli flows in a real terminal: tmux runs `hearth` against a
// real daemon whose GitHub is the fake. The code appears on screen, the fake approves, the
// screen reads signed in; Esc cancels a device login; key g takes a stand-in gh's token.
import assert from 'node:assert/strict'
import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { FakeGitHub } from '../fakes/github.ts'
import { BIN, startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'
import { Tmux } from '../helpers/tmux.ts'

const ready = (screen: string) => /idle · /.test(screen) && screen.includes('──────')
const GH_CLIENT = 'gh-cli-app'

describe('the login screen signs in to copilot (tmux)', () => {
  let gh: FakeGitHub
  let d: TestDaemon
  let program: string
  const terminals: Tmux[] = []
  const open = () => {
    const vars = { PATH: process.env.PATH ?? '', HEARTH_NO_BROWSER: '1' }
    const t = Tmux.start(
      ['env', ...Object.entries(vars).map(([k, v]) => `${k}=${v}`), process.execPath, BIN, '--home', d.home],
      { columns: 120, rows: 40, cwd: d.home },
    )
    terminals.push(t)
    return t
  }
  const auth = async () => (await d.request({ path: '/auth' })).json()
  const openLogin = async (t: Tmux) => {
    await t.waitFor(ready, 'the prompt')
    t.type('/login copilot')
    await t.waitFor((x) => /^ \/login copilot\s*$/m.test(x), 'the command typed')
    t.keys('Enter')
  }

  before(async () => {
    gh = await FakeGitHub.start()
    gh.interval = 0.05
    gh.directClients.add(GH_CLIENT)
    program = join(tempHome('hearth-gh-'), 'gh')
    d = await startDaemon({
      env: gh.daemonEnv(program),
    })
  })
  after(async () => {
    for (const t of terminals) t.kill()
    await d.stop()
    await gh.close()
  })

  it('/login copilot shows the code and the URL; once GitHub approves the screen reads signed in', async () => {
    const t = open()
    await openLogin(t)
    const screen = await t.waitFor((x) => /code: [A-Z]{4}-[A-Z]{4}/.test(x), 'the code on screen')
    const code = /code: ([A-Z]{4}-[A-Z]{4})/.exec(screen)![1]
    assert.equal(code, gh.userCodes.at(-1))
    assert.ok(screen.includes(`${gh.url}/login/device`), screen)
    assert.match(screen, /state: waiting/)
    assert.match(screen, /this finishes by itself · Esc cancel/)
    gh.approve(code, { id: 583231, login: 'octocat', copilot: true })
    await t.waitFor((x) => x.includes('signed in as octocat'), 'the result')
    const after = await auth()
    assert.equal(after.providers.find((p: any) => p.extension === 'copilot').status, 'signed in')
    t.keys('Enter')
    await t.waitFor(ready, 'back in the chat')
  })

  it('Esc cancels the device login', async () => {
    const t = open()
    await openLogin(t)
    await t.waitFor((x) => /code: [A-Z]{4}-[A-Z]{4}/.test(x), 'the code on screen')
    const [login] = (await auth()).logins
    assert.equal(login.flow, 'device')
    t.keys('Escape')
    await t.waitFor((x) => ready(x) && !x.includes('Sign in'), 'back in the chat')
    const deadline = Date.now() + 20_000
    let state = ''
    while (state !== 'cancelled') {
      assert.ok(Date.now() < deadline, `the login stayed ${state}`)
      state = (await d.request({ path: `/auth/logins/${login.id}` })).json().state
      await new Promise((r) => setTimeout(r, 20))
    }
  })

  it('the list offers the GitHub CLI: g saves its token', async () => {
    writeFileSync(
      program,
      `#!/bin/sh\necho '${gh.issue({ id: 4242, login: 'hubot', copilot: true }, GH_CLIENT)}'\n`,
    )
    chmodSync(program, 0o755)
    const t = open()
    await t.waitFor(ready, 'the prompt')
    t.type('/login')
    t.keys('Enter')
    await t.waitFor((x) => x.includes('GitHub Copilot (copilot)'), 'the provider list')
    // Copilot is the last of the list: Down past the end stays on it.
    for (let i = 0; i < 6; i++) t.keys('Down')
    const list = await t.waitFor((x) => /› GitHub Copilot/.test(x), 'copilot chosen')
    assert.match(list, /g: take the token of the signed-in command-line tool/)
    assert.match(list, /GitHub's terms cover Copilot/)
    t.type('g')
    await t.waitFor((x) => x.includes('signed in as hubot'), 'the result')
  })
})
