// A Copilot account against the fake GitHub over a real socket: the user, the Copilot token
// exchange (the account's refresh), the API base and the refusals.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  apiBaseOf,
  copilotCredential,
  exchangeCopilotToken,
  type GitHubCall,
  githubUser,
  identityOf,
  refreshCopilot,
} from '../../../src/providers/copilot/account.ts'
import { githubUrls } from '../../../src/providers/copilot/constants.ts'
import { SignInError } from '../../../src/providers/shared/sign-in-plugin.ts'
import { FakeGitHub } from '../../fakes/github.ts'

const octocat = { id: 583231, login: 'octocat', copilot: true }
let gh: FakeGitHub
let clock = 1_767_225_600_000
let call: GitHubCall

before(async () => {
  gh = await FakeGitHub.start()
  gh.now = () => clock
  call = { urls: githubUrls(gh.url), fetch: globalThis.fetch, signal: new AbortController().signal }
})
after(() => gh.close())

async function refusedWith(promise: Promise<unknown>, code: string, token: string): Promise<void> {
  const err = await promise.then(
    () => assert.fail('expected a refusal'),
    (e: unknown) => e,
  )
  assert.ok(err instanceof SignInError, String(err))
  assert.equal(err.code, code)
  assert.ok(!err.message.includes(token), 'the message carries no token')
}

describe('copilot account', () => {
  it('names the GitHub user and exchanges its token with the editor headers', async () => {
    const github = gh.issue(octocat)
    assert.deepEqual(await githubUser(call, github), { id: 583231, login: 'octocat' })
    assert.equal(gh.requests.at(-1)!.headers.authorization, `token ${github}`)

    const token = await exchangeCopilotToken(call, github)
    const sent = gh.requests.at(-1)!
    assert.equal(sent.path, '/api/copilot_internal/v2/token')
    assert.equal(sent.headers.authorization, `Bearer ${github}`)
    assert.equal(sent.headers['editor-version'], 'vscode/1.107.0')
    assert.equal(sent.headers['copilot-integration-id'], 'vscode-chat')
    assert.equal(token.expires, (Math.floor(clock / 1000) + 1800) * 1000)
    assert.equal(token.api, gh.copilotUrl)
    assert.ok(gh.copilotTokenLive(token.access))
  })

  it('refreshes by exchanging again and keeps the account’s name', async () => {
    const github = gh.issue(octocat)
    const first = copilotCredential('github.com', github, octocat, await exchangeCopilotToken(call, github))
    clock += 1_700_000
    const next = await refreshCopilot(call, { ...first, limitedUntil: 5 })
    assert.notEqual(next.access, first.access)
    assert.ok(gh.copilotTokenLive(String(next.access)))
    assert.equal(next.limitedUntil, 5)
    assert.equal(identityOf(next).id, identityOf(first).id)
    assert.match(identityOf(first).id, /^copilot-[0-9a-f]{16}$/)
    assert.equal(identityOf(first).label, 'octocat')
    const elsewhere = identityOf({ ...first, host: 'octocorp.ghe.com' })
    assert.notEqual(elsewhere.id, identityOf(first).id)
  })

  it('refuses a revoked token, another app’s token and an account without Copilot', async () => {
    const revoked = gh.issue(octocat)
    gh.revoke(revoked)
    await refusedWith(exchangeCopilotToken(call, revoked), 'invalid_grant', revoked)
    await refusedWith(refreshCopilot(call, { type: 'oauth' }), 'invalid_grant', 'none')
    const other = gh.issue(octocat, 'Ov23li8tweQw6odWQebz')
    await refusedWith(exchangeCopilotToken(call, other), 'exchange_refused', other)
    const plain = gh.issue({ id: 2, login: 'plain', copilot: false })
    await refusedWith(exchangeCopilotToken(call, plain), 'no_copilot', plain)
  })

  it('finds the API base in endpoints.api, else the token’s proxy-ep, else the default', () => {
    assert.equal(
      apiBaseOf({ endpoints: { api: 'https://api.business.githubcopilot.com/' } }, ''),
      'https://api.business.githubcopilot.com',
    )
    assert.equal(
      apiBaseOf({}, 'tid=1;exp=2;proxy-ep=proxy.individual.githubcopilot.com;8kp=1'),
      'https://api.individual.githubcopilot.com',
    )
    assert.equal(apiBaseOf({ endpoints: { api: 'javascript:x' } }, 'tid=1'), 'https://api.githubcopilot.com')
  })
})
