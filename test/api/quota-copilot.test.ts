// Copilot in the real daemon's quota poller, through hearth's own built core and the fake
// GitHub: a signed-in copilot account polls feed `copilot` (the fake's
// `copilot_internal/user`, which refuses any token but the GitHub token it issued) and is
// served by GET /server under its GitHub login, its `limitedUntil` cleared by premium
// requests left, its profile not polled on gh; a copilot profile with no account polls on
// the stand-in `gh auth token`;
// a signed-out gh is a failure reading, and nothing gh printed reaches the readings or logs.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { FakeGitHub, type FakeGitHubAccount } from '../fakes/github.ts'
import { StandInCore } from '../fakes/stand-in-core.ts'
import { StandInGh } from '../fakes/stand-in-gh.ts'
import { startDaemon, type TestDaemon, tempHome, until } from '../helpers/daemon.ts'
import { creds, HOUR, waitReadings, writeHome } from '../helpers/quota-poll.ts'

interface Served {
  provider: string
  account: string
  limit_id: string
  limit_label: string | null
  used_percent: number | null
  reset_at_ms: number | null
  plan: string | null
  error: string | null
}

const MONA: FakeGitHubAccount = { id: 1001, login: 'mona', copilot: true }
const HUBOT: FakeGitHubAccount = {
  id: 1002,
  login: 'hubot',
  copilot: true,
  usage: {
    copilot_plan: 'business',
    quota_reset_date: '2031-05-01',
    quota_snapshots: {
      premium_interactions: {
        entitlement: '300',
        remaining: '75',
        percent_remaining: '25',
        unlimited: false,
      },
      chat: { entitlement: 0, remaining: 0, percent_remaining: 100, unlimited: true },
    },
  },
}
const PROFILE = {
  providers: { default_profile: 'cp', profiles: { cp: { extension: 'copilot', model: 'gpt-4.1' } } },
}

/** GET /server's quota once `check` holds (fails after a minute). */
async function servedQuota(
  d: TestDaemon,
  what: string,
  check: (rows: Served[]) => boolean,
): Promise<Served[]> {
  const deadline = Date.now() + 60_000
  for (;;) {
    const rows = ((await d.request({ path: '/server' })).json().quota as Served[] | null) ?? []
    if (check(rows)) return rows
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(rows)}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

const pick = (r: Served) => [
  r.provider,
  r.account,
  r.limit_id,
  r.limit_label,
  r.used_percent,
  r.plan,
  r.error,
]

describe('copilot quota through the built-in usage core', () => {
  let github: FakeGitHub
  let gh: StandInGh
  let unusedGh: StandInGh
  let signedIn: TestDaemon
  let cli: TestDaemon
  let githubToken: string
  let ghToken: string
  const limitedUntil = Date.now() + 20 * 24 * HOUR

  before(async () => {
    github = await FakeGitHub.start()
    githubToken = github.issue(MONA)
    ghToken = github.issue(HUBOT)
    gh = new StandInGh().signIn(ghToken)
    unusedGh = new StandInGh().signIn(github.issue(HUBOT))
    const accountHome = tempHome()
    writeHome(accountHome, {
      config: PROFILE,
      creds: {
        accounts: {
          copilot: {
            type: 'oauth',
            github: githubToken,
            access: 'tid=copilot-access;exp=1',
            expires: Date.now() + HOUR,
            api: github.copilotUrl,
            host: 'github.com',
            user_id: MONA.id,
            login: MONA.login,
            limitedUntil,
          },
        },
      },
    })
    const cliHome = tempHome()
    writeHome(cliHome, { config: PROFILE, creds: {} })
    const env = { HEARTH_COPILOT_GITHUB_URL: github.url }
    ;[signedIn, cli] = await Promise.all([
      startDaemon({ home: accountHome, env: { ...env, HEARTH_COPILOT_GH: unusedGh.path } }),
      startDaemon({ home: cliHome, env: { ...env, HEARTH_COPILOT_GH: gh.path } }),
    ])
  })
  after(async () => {
    await Promise.all([signedIn?.stop(), cli?.stop()])
    await github.close()
    gh.close()
    unusedGh.close()
  })

  it('a signed-in account polls feed copilot with its GitHub token; GET /server serves it under its login', async () => {
    const rows = await servedQuota(signedIn, 'a copilot reading', (r) =>
      r.some((x) => x.provider === 'copilot'),
    )
    assert.deepEqual(rows.map(pick), [['copilot', 'mona', 'primary', 'Premium', 10, 'Individual', null]])
    assert.equal(rows[0].reset_at_ms, Date.parse('2026-12-01T00:00:00Z'))
    // Both daemons call the one fake GitHub: the account's calls carry its GitHub token, the
    // profile's the token gh printed, and no call any other (the Copilot token least of all).
    const sent = github.requests
      .filter((r) => r.path === '/api/copilot_internal/user')
      .map((r) => r.headers.authorization)
    assert.ok(sent.includes(`token ${githubToken}`), JSON.stringify(sent))
    for (const auth of sent)
      assert.ok([`token ${githubToken}`, `token ${ghToken}`].includes(auth ?? ''), auth)
  })

  it('premium requests left clear the account’s limitedUntil; the rest of it is kept', async () => {
    const stored = await until('limitedUntil cleared', () => {
      const c = creds(signedIn.home).accounts.copilot
      return c.limitedUntil === undefined ? c : undefined
    })
    assert.equal(stored.github, githubToken)
    assert.equal(stored.login, 'mona')
  })

  it('a copilot profile with no account polls on gh auth token, under the profile’s name', async () => {
    const rows = await servedQuota(cli, 'a copilot reading of the profile', (r) =>
      r.some((x) => x.provider === 'copilot'),
    )
    assert.deepEqual(rows.map(pick), [['copilot', 'cp', 'primary', 'Premium', 75, 'Business', null]])
    assert.deepEqual(gh.calls(), ['auth token'])
  })
})

describe('copilot quota on a signed-out GitHub CLI', () => {
  let core: StandInCore
  let gh: StandInGh
  let d: TestDaemon
  const LEAKS = ['gho_printedOnStdout0123456789', 'gho_printedOnStderr0123456789']

  before(async () => {
    core = new StandInCore()
    gh = new StandInGh().signOut(LEAKS[0], `error: ${LEAKS[1]} is not valid; try gh auth login`)
    const home = tempHome()
    writeHome(home, { config: PROFILE, creds: {} })
    d = await startDaemon({ home, env: { HEARTH_USAGE_CORE: core.path, HEARTH_COPILOT_GH: gh.path } })
  })
  after(async () => {
    await d?.stop()
    core.close()
    gh.close()
  })

  it('is a failure reading that says to sign gh in; the core is not run; nothing gh printed is kept', async () => {
    const rows = await waitReadings(d.home, 'the failure reading', (r) =>
      r.some((x) => x.provider === 'copilot'),
    )
    assert.equal(rows.length, 1)
    assert.deepEqual([rows[0].account, rows[0].limit_id, rows[0].used_percent], ['cp', '', null])
    assert.match(rows[0].error ?? '', /GitHub CLI gave no token .*run gh auth login/)
    assert.equal(core.calls().length, 0)
    await d.stop()
    const kept = [JSON.stringify(rows), d.stderr, ...logFiles(d.home)].join('\n')
    for (const leak of LEAKS) assert.ok(!kept.includes(leak), `gh's output was kept: ${leak}`)
  })
})

/** Every log file's text under the home. */
function logFiles(home: string): string[] {
  const dir = join(home, 'logs')
  return readdirSync(dir).map((name) => readFileSync(join(dir, name), 'utf8'))
}
