// Copilot in the quota poller's accounts (accounts.ts over copilot's quota.ts): accounts poll
// feed `copilot` labelled by their GitHub login and hand over only the GitHub token; a
// copilot profile with no account polls on `gh auth token` (a real stand-in program), a gh
// that gives no token is a failure reading that quotes none of gh's output; readings with
// premium requests left clear `limitedUntil`.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { AccountPlugin } from '../../src/auth/accounts.ts'
import { healMarks, quota } from '../../src/providers/copilot/quota.ts'
import { PROVIDERS } from '../../src/providers/registry.ts'
import { type AccountsDeps, discoverAccounts, handoffFor } from '../../src/quota/accounts.ts'
import type { FileContents } from '../../src/settings/files.ts'
import { signInSettings } from '../../src/settings/groups/providers.ts'
import { StandInGh } from '../fakes/stand-in-gh.ts'

const signIns = signInSettings({})
const plugins = new Map<string, AccountPlugin>(
  PROVIDERS.flatMap((p) => (p.signIn ? [[p.id, p.signIn.plugin(signIns[p.id] ?? {}) as AccountPlugin]] : [])),
)

const account = (fields: Record<string, unknown> = {}) => ({
  type: 'oauth',
  github: 'ghu_githubToken0123456789',
  access: 'tid=copilot-token;exp=1',
  expires: 1_900_000_000_000,
  api: 'https://api.individual.githubcopilot.com',
  host: 'github.com',
  user_id: 583231,
  login: 'octocat',
  ...fields,
})

const PROFILES = {
  providers: {
    profiles: {
      cp: { extension: 'copilot', model: 'gpt-4.1' },
      glm: { endpoint: 'https://api.z.ai/api/paas/v4', model: 'glm-4.6' },
    },
  },
}

const files = (over: Partial<FileContents> = {}): FileContents => ({
  'config.json': {},
  'creds.json': {},
  'extensions.json': {},
  ...over,
})

const depsOf = (f: FileContents): AccountsDeps => ({
  settings: { files: () => f, update: async () => {} },
  plugins: () => plugins,
})

describe('copilot accounts and profiles to poll', () => {
  it('an account polls feed copilot, labelled by its GitHub login; its profile does not poll on gh', () => {
    const found = discoverAccounts(
      files({ 'config.json': PROFILES, 'creds.json': { accounts: { copilot: account() } } }),
      () => plugins,
    )
    assert.deepEqual(
      found.map((a) => [a.feed, a.label, a.source.kind]),
      [['copilot', 'octocat', 'account']],
    )
  })

  it('a copilot profile with no account polls feed copilot under its name; not when the extension is off', () => {
    const found = discoverAccounts(files({ 'config.json': PROFILES }), () => plugins)
    assert.deepEqual(
      found.map((a) => [a.key, a.feed, a.label]),
      [['profile/cp', 'copilot', 'cp']],
    )
    const off = discoverAccounts(
      files({ 'config.json': PROFILES, 'extensions.json': { extensions: { copilot: { enabled: false } } } }),
      () => plugins,
    )
    assert.deepEqual(off, [])
  })

  it('an account hands over only its GitHub token (and an enterprise host, a public fact)', () => {
    assert.deepEqual(quota.handoff!(account(), '/tmp/unused'), {
      env: { COPILOT_API_TOKEN: 'ghu_githubToken0123456789' },
      files: {},
    })
    assert.deepEqual(quota.handoff!(account({ host: 'octocorp.ghe.com' }), '/tmp/unused').env, {
      COPILOT_API_TOKEN: 'ghu_githubToken0123456789',
      HEARTH_COPILOT_HOST: 'octocorp.ghe.com',
    })
  })
})

describe('a copilot profile on the signed-in GitHub CLI', () => {
  let gh: StandInGh
  const saved = process.env.HEARTH_COPILOT_GH
  before(() => {
    gh = new StandInGh()
    process.env.HEARTH_COPILOT_GH = gh.path
  })
  after(() => {
    process.env.HEARTH_COPILOT_GH = saved
    gh.close()
  })

  const profile = () => discoverAccounts(files({ 'config.json': PROFILES }), () => plugins)[0]

  it('reads `gh auth token` at poll time and hands its token over', async () => {
    gh.signIn('gho_ghCliToken0123456789')
    const got = await handoffFor(profile(), depsOf(files({ 'config.json': PROFILES })))
    assert.equal(got.kind, 'handoff')
    assert.deepEqual(got.kind === 'handoff' && got.handoff('/tmp/unused'), {
      env: { COPILOT_API_TOKEN: 'gho_ghCliToken0123456789' },
      files: {},
    })
    assert.deepEqual(gh.calls(), ['auth token'])
  })

  it('an enterprise host in the sign-in settings is asked of gh and handed over', async () => {
    gh.signIn('gho_ghCliToken0123456789')
    const config = {
      providers: { ...PROFILES.providers, sign_in: { copilot: { host: 'octocorp.ghe.com' } } },
    }
    const saved = process.env.HEARTH_COPILOT_GITHUB_URL
    delete process.env.HEARTH_COPILOT_GITHUB_URL
    try {
      const got = await handoffFor(profile(), depsOf(files({ 'config.json': config })))
      assert.equal(
        got.kind === 'handoff' && got.handoff('/tmp/x').env.HEARTH_COPILOT_HOST,
        'octocorp.ghe.com',
      )
      assert.equal(gh.calls().at(-1), 'auth token --hostname octocorp.ghe.com')
    } finally {
      if (saved !== undefined) process.env.HEARTH_COPILOT_GITHUB_URL = saved
    }
  })

  it('a signed-out gh is a failure reading that quotes nothing gh printed', async () => {
    gh.signOut('gho_leakedOnStdout0123456789', 'error: token gho_leakedOnStderr0123456789 revoked')
    const got = await handoffFor(profile(), depsOf(files({ 'config.json': PROFILES })))
    assert.equal(got.kind, 'auth_failure')
    const report = got.kind === 'auth_failure' ? got.report : null
    assert.equal(report?.provider, 'copilot')
    assert.equal(report?.usage, null)
    assert.match(report?.error?.message ?? '', /GitHub CLI gave no token .*run gh auth login/)
    assert.doesNotMatch(JSON.stringify(report), /leakedOn/)
  })

  it('no gh at all says so', async () => {
    process.env.HEARTH_COPILOT_GH = `${gh.dir}/missing-gh`
    try {
      const got = await handoffFor(profile(), depsOf(files({ 'config.json': PROFILES })))
      assert.match(got.kind === 'auth_failure' ? got.report.error!.message : '', /gh\) is not installed/)
    } finally {
      process.env.HEARTH_COPILOT_GH = gh.path
    }
  })

  it('an account stored since discovery takes over: the profile is gone and gh is not run', async () => {
    gh.signIn('gho_ghCliToken0123456789')
    const runs = gh.calls().length
    const now = files({ 'config.json': PROFILES, 'creds.json': { accounts: { copilot: account() } } })
    assert.deepEqual(await handoffFor(profile(), depsOf(now)), { kind: 'gone' })
    assert.equal(gh.calls().length, runs)
  })
})

describe('copilot limit marks healed by readings', () => {
  const until = Date.now() + 20 * 86_400_000
  const limit = (limitId: string, usedPercent: number | null) => ({
    limitId,
    label: null,
    resetAtMs: null,
    usedPercent,
  })

  it('premium requests left clear limitedUntil; everything else is kept', () => {
    assert.deepEqual(healMarks(account({ limitedUntil: until, selected: true }), [limit('primary', 40)]), {
      ...account(),
      selected: true,
    })
  })

  it('premium unlimited (no premium window) clears it too', () => {
    assert.equal(
      healMarks(account({ limitedUntil: until }), [limit('secondary', 10)])?.limitedUntil,
      undefined,
    )
  })

  it('premium used up, a quota used up, or an unknown premium figure keep the mark', () => {
    assert.equal(healMarks(account({ limitedUntil: until }), [limit('primary', 100)]), null)
    assert.equal(
      healMarks(account({ limitedUntil: until }), [limit('primary', 20), limit('secondary', 100)]),
      null,
    )
    assert.equal(healMarks(account({ limitedUntil: until }), [limit('primary', null)]), null)
  })

  it('changes nothing without a mark', () => {
    assert.equal(healMarks(account(), [limit('primary', 10)]), null)
  })
})
