// The `cli` flow of a real daemon: the token of a signed-in GitHub CLI, read by running a
// stand-in `gh` (a script named by HEARTH_COPILOT_GH, a real child process), checked
// against the fake GitHub and Copilot API, saved only by this login. gh missing, exiting 1,
// printing garbage, and a token Copilot refuses each fail with a plain instruction.
import assert from 'node:assert/strict'
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { v7 as uuidv7 } from 'uuid'
import { EDITOR_CLIENT_ID, FakeGitHub } from '../fakes/github.ts'
import { logText, startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'

const GH_CLIENT = 'gh-cli-app'
const HUBOT = { id: 4242, login: 'hubot', copilot: true }

describe('copilot cli sign-in (a stand-in gh)', () => {
  let gh: FakeGitHub
  let d: TestDaemon
  let dir: string
  const program = () => join(dir, 'gh')
  /** The stand-in: `gh auth token` answers as `mode` says (printing `token` when asked to). */
  const standIn = (mode: 'token' | 'fail' | 'garbage', token = '') => {
    writeFileSync(join(dir, 'token'), token)
    writeFileSync(
      program(),
      `#!/bin/sh
[ "$1 $2" = "auth token" ] || { echo "unexpected: $*" >&2; exit 2; }
case '${mode}' in
  token) cat '${join(dir, 'token')}' ;;
  fail) echo 'no oauth token found for github.com' >&2; exit 1 ;;
  garbage) echo 'Welcome to GitHub CLI!' ;;
esac
`,
    )
    chmodSync(program(), 0o755)
  }
  const put = async () => {
    const res = await d.request({
      method: 'PUT',
      path: `/auth/logins/${uuidv7()}`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'copilot', flow: 'cli', values: {} }),
    })
    assert.equal(res.status, 201, res.text())
    return res.json()
  }
  const creds = () => JSON.parse(readFileSync(join(d.home, 'creds.json'), 'utf8')).accounts?.copilot

  before(async () => {
    gh = await FakeGitHub.start()
    gh.directClients.add(GH_CLIENT)
    dir = tempHome('hearth-gh-')
    d = await startDaemon({
      env: gh.daemonEnv(program()),
    })
  })
  after(async () => {
    await d.stop()
    await gh.close()
  })

  it('gh missing: failed cli_missing, saying to install gh', async () => {
    rmSync(program(), { force: true })
    const login = await put()
    assert.deepEqual([login.flow, login.state, login.failure], ['cli', 'failed', 'cli_missing'])
    assert.match(login.instructions, /not installed/)
    assert.match(login.instructions, /gh auth login/)
    assert.equal(creds(), undefined, 'nothing saved')
  })

  it('gh exiting 1 or printing no token: failed cli_signed_out, saying to run gh auth login', async () => {
    for (const mode of ['fail', 'garbage'] as const) {
      standIn(mode)
      const login = await put()
      assert.deepEqual([login.state, login.failure], ['failed', 'cli_signed_out'], mode)
      assert.match(login.instructions, /not signed in: run gh auth login/, mode)
    }
    assert.equal(creds(), undefined, 'nothing saved')
  })

  it('a token GitHub does not know, or one Copilot refuses: failed cli_refused, saying so', async () => {
    standIn('token', 'gho_revokedTokenOfTheCli0000')
    const unknown = await put()
    assert.deepEqual([unknown.state, unknown.failure], ['failed', 'cli_refused'])
    assert.match(unknown.instructions, /GitHub does not accept the token gh printed/)

    // A real GitHub user whose CLI app Copilot does not take (the exchange 403, the API 401).
    standIn('token', gh.issue(HUBOT, 'some-other-app'))
    const refused = await put()
    assert.deepEqual([refused.state, refused.failure], ['failed', 'cli_refused'])
    assert.match(refused.instructions, /Copilot does not accept the token of the GitHub CLI/)
    assert.match(refused.instructions, /hearth login copilot/)
    assert.equal(creds(), undefined, 'nothing saved')
  })

  it("gh's token that Copilot takes as it is: the PUT answers complete with a direct account", async () => {
    const token = gh.issue(HUBOT, GH_CLIENT)
    standIn('token', `${token}\n`)
    const login = await put()
    assert.equal(login.state, 'complete', JSON.stringify(login))
    assert.equal(login.url, '')
    assert.equal(login.accounts[0].label, 'hubot')
    assert.equal(login.accounts[0].expires_at, null, 'a direct token never expires')
    assert.equal(login.accounts[0].refreshable, true)
    const saved = creds()
    assert.deepEqual([saved.mode, saved.github, saved.access, saved.login], ['direct', token, token, 'hubot'])
    assert.equal(saved.api, gh.copilotUrl)
    // The Copilot API was asked with the token itself.
    const probe = gh.requests.findLast((r) => r.path === '/copilot/models')
    assert.equal(probe?.headers.authorization, `Bearer ${token}`)

    const auth = (await d.request({ path: '/auth' })).json()
    assert.equal(auth.providers.find((p: any) => p.extension === 'copilot').status, 'signed in')
    const log = logText(d.home)
    assert.equal(log.includes(token), false, 'the token is not in the log')
    assert.equal(JSON.stringify(login).includes(token), false, 'nor in the login')
  })

  it("gh's token of an app the exchange accepts: stored with a Copilot token", async () => {
    standIn('token', gh.issue(HUBOT, EDITOR_CLIENT_ID))
    const login = await put()
    assert.equal(login.state, 'complete', JSON.stringify(login))
    assert.ok(login.accounts[0].expires_at)
    const saved = creds()
    assert.equal(saved.mode, undefined)
    assert.ok(gh.copilotTokenLive(saved.access), 'a live Copilot token')
  })
})
