// `hearth login copilot` against a daemon whose GitHub is the fake: the policy first, then
// the URL and the code to enter; it finishes by itself once GitHub approves, Ctrl-C cancels
// the login, and `--gh` saves the token of a stand-in GitHub CLI (or says what to do).
import assert from 'node:assert/strict'
import { chmodSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { FakeGitHub } from '../fakes/github.ts'
import { BIN, startCli, startDaemon, type TestDaemon, tempHome, until } from '../helpers/daemon.ts'
import { Tmux } from '../helpers/tmux.ts'

const OCTOCAT = { id: 583231, login: 'octocat', copilot: true }
const GH_CLIENT = 'gh-cli-app'

describe('hearth login copilot', () => {
  let gh: FakeGitHub
  let d: TestDaemon
  let program: string
  const login = (...args: string[]) =>
    startCli(
      ['login', 'copilot', '--home', d.home, ...args],
      { HEARTH_NO_BROWSER: '1' },
      { timeoutMs: 30_000 },
    )
  /** The code, once the command printed all it prints before waiting. */
  const codeIn = (text: string) =>
    text.includes('cancels') ? /enter the code ([A-Z]{4}-[A-Z]{4})/.exec(text)?.[1] : undefined

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
    await d.stop()
    await gh.close()
  })

  it('states the policy, shows the URL and the code, and finishes once GitHub approves', async () => {
    const cli = login()
    const code = await until('the code', () => codeIn(cli.stdout()), 20_000, 10)
    const printed = cli.stdout()
    const policy = printed.indexOf("GitHub's terms cover Copilot")
    assert.ok(policy >= 0 && policy < printed.indexOf(code), printed)
    assert.match(printed, /counts against your Copilot plan's quota/)
    assert.ok(printed.includes(`  ${gh.url}/login/device\n`), 'the URL on a line of its own')
    assert.match(printed, /Esc or Ctrl-C cancels/)
    gh.approve(code, OCTOCAT)
    const done = await cli.done
    assert.equal(done.code, 0, done.stdout + done.stderr)
    assert.match(done.stdout, /Signed in to copilot as octocat\./)
  })

  it('Ctrl-C cancels the login', async () => {
    const cli = login()
    await until('the code', () => codeIn(cli.stdout()), 20_000, 10)
    assert.equal((await d.request({ path: '/auth' })).json().logins.length, 1)
    cli.child.kill('SIGINT')
    const done = await cli.done
    assert.equal(done.code, 130, done.stdout + done.stderr)
    const auth = (await d.request({ path: '/auth' })).json()
    assert.equal(auth.logins.length, 0, 'no login left waiting')
  })

  it('Esc on a terminal cancels the login', async () => {
    const t = Tmux.start(
      ['env', 'HEARTH_NO_BROWSER=1', process.execPath, BIN, 'login', 'copilot', '--home', d.home],
      { columns: 120, rows: 30, cwd: d.home },
    )
    try {
      const screen = await t.waitFor((x) => codeIn(x) !== undefined, 'the code')
      assert.match(screen, /Esc or Ctrl-C cancels/)
      const code = codeIn(screen) as string
      const waiting = (await d.request({ path: '/auth' }))
        .json()
        .logins.find((l: any) => l.instructions.includes(code))
      t.keys('Escape')
      await until('the command ended', () => t.ended, 15_000, 20)
      const after = (await d.request({ path: `/auth/logins/${waiting.id}` })).json()
      assert.equal(after.state, 'cancelled')
    } finally {
      t.kill()
    }
  })

  it('--gh saves the signed-in GitHub CLI token; without gh it says to install it', async () => {
    rmSync(program, { force: true })
    const missing = await login('--gh').done
    assert.equal(missing.code, 1)
    assert.match(missing.stdout, /GitHub CLI \(gh\) is not installed/)
    assert.match(missing.stderr, /sign-in failed \(cli_missing\)/)

    writeFileSync(
      program,
      `#!/bin/sh\necho '${gh.issue({ id: 4242, login: 'hubot', copilot: true }, GH_CLIENT)}'\n`,
    )
    chmodSync(program, 0o755)
    const done = await login('--gh').done
    assert.equal(done.code, 0, done.stdout + done.stderr)
    assert.match(done.stdout, /Signed in to copilot as hubot\./)
    assert.doesNotMatch(done.stdout, /enter the code/)
  })
})
