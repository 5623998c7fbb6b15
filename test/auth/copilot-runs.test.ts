// The copilot provider end to end through the daemon: accounts in creds.json as a sign-in
// stores them (tokens the fake GitHub issued and exchanged), copilot profiles in
// config.json, the fake Copilot API behind them (HEARTH_COPILOT_GITHUB_URL for the
// exchange). Turns carry the Copilot token and Copilot's headers (x-initiator `user`, then
// `agent` after a tool result; the vision header with an image); a token within the minute
// of its expiry is exchanged again first; a 429 or a used-up quota marks the account and the
// next turn takes the other; a 401 ends the turn with `run /login` and expires the token, and
// a GitHub token revoked meanwhile signs the account out.
import assert from 'node:assert/strict'
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { DIRECT_HEADERS, EXCHANGE_HEADERS } from '../../src/providers/copilot/constants.ts'
import { nextMonthUtc } from '../../src/providers/copilot/limits.ts'
import {
  copilotAccount,
  FakeCopilotUpstream,
  QUOTA_EXCEEDED,
  rateLimited,
  writeCopilotAccounts,
} from '../fakes/copilot-upstream.ts'
import { FakeGitHub, type FakeGitHubAccount } from '../fakes/github.ts'
import { answer, callTools, toolResultsOf } from '../fakes/tool-script.ts'
import { startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'
import { idle, message, putInput, waitSession } from '../inputs/helpers.ts'
import { fileJson } from '../settings/helpers.ts'
import { createSession } from '../streams/sse-client.ts'

const ADA: FakeGitHubAccount = { id: 101, login: 'ada', copilot: true }
const BOB: FakeGitHubAccount = { id: 202, login: 'bob', copilot: true }
/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

describe('copilot turns through the daemon', () => {
  let github: FakeGitHub
  let upstream: FakeCopilotUpstream
  let d: TestDaemon
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-ws-')))

  const stored = (): any[] => [fileJson(d.home, 'creds.json').accounts?.copilot ?? []].flat()
  const exchanges = () => github.requests.filter((r) => r.path === '/api/copilot_internal/v2/token').length
  const copilotAuth = async () => {
    const auth = (await d.request({ path: '/auth' })).json()
    return {
      provider: auth.providers.find((p: any) => p.extension === 'copilot'),
      accounts: auth.accounts.filter((a: any) => a.provider === 'copilot'),
    }
  }

  /** The steps the upstream got (a run's background model listing is a GET, left out). */
  const steps = () => upstream.requests.filter((r) => r.method === 'POST')

  async function turn(sid: string, text: string, extra: Record<string, unknown> = {}) {
    const before = steps().length
    await putInput(d, sid, message(text, extra))
    const done = await waitSession(d, sid, (s) => idle(s) && s.latest_answer !== null)
    const error = done.history.items.findLast((e: any) => e.kind === 'error')
    return {
      outcome: done.latest_answer.outcome as string,
      detail: String(error?.content.problem.detail ?? ''),
      code: error?.content.problem.code as string | undefined,
      sent: steps().slice(before),
      token: String(steps().at(-1)?.headers.authorization ?? '').replace(/^Bearer /, ''),
    }
  }

  async function until<T>(read: () => T, ok: (v: T) => boolean, what: string): Promise<T> {
    const deadline = Date.now() + 5_000
    for (;;) {
      const v = read()
      if (ok(v)) return v
      if (Date.now() > deadline) throw new Error(`never: ${what} (${JSON.stringify(v)})`)
      await sleep(20)
    }
  }

  const session = (profile = 'cp') => createSession(d, { kind: 'new', workspace, provider_profile: profile })

  before(async () => {
    github = await FakeGitHub.start()
    upstream = await FakeCopilotUpstream.start()
    github.copilotApi = upstream.url
    upstream.accepts = (token) => github.copilotTokenLive(token)
    const home = tempHome()
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        providers: {
          default_profile: 'cp',
          profiles: {
            cp: {
              extension: 'copilot',
              protocol: 'chat_completions',
              model: 'gpt-4.1',
              request_max_retries: 0,
            },
            cpr: {
              extension: 'copilot',
              protocol: 'responses',
              model: 'gpt-5.2-codex',
              request_max_retries: 0,
            },
          },
        },
      }),
    )
    d = await startDaemon({
      home,
      env: { HEARTH_COPILOT_GITHUB_URL: github.url, HEARTH_COPILOT_API_URL: upstream.url },
    })
    writeFileSync(join(workspace, 'notes.txt'), 'buy milk\n')
  })
  after(async () => {
    await d?.stop()
    await upstream?.close()
    await github?.close()
  })

  it('a tool round trip on Chat Completions: the Copilot token, editor headers, x-initiator user then agent', async () => {
    const ada = await copilotAccount(github, ADA)
    writeCopilotAccounts(d.home, [ada])
    upstream.enqueue(callTools({ name: 'read', arguments: { path: 'notes.txt' }, id: 'call_notes' }), (r) =>
      answer(`It says: ${toolResultsOf(r.body)[0]?.output.trim()}`),
    )
    const t = await turn(await session(), 'what do my notes say?')
    assert.equal(t.outcome, 'completed', t.detail)
    assert.equal(t.sent.length, 2)
    for (const r of t.sent) {
      assert.equal(r.path, '/chat/completions')
      assert.equal(r.headers.authorization, `Bearer ${ada.access}`)
      for (const [name, value] of Object.entries(EXCHANGE_HEADERS)) assert.equal(r.headers[name], value, name)
      assert.equal(r.headers['openai-intent'], 'conversation-edits')
      assert.equal(r.body.model, 'gpt-4.1')
      assert.equal(r.headers['copilot-vision-request'], undefined)
    }
    assert.deepEqual(
      t.sent.map((r) => r.headers['x-initiator']),
      ['user', 'agent'],
    )
    assert.match(toolResultsOf(t.sent[1]!.body)[0]?.output ?? '', /buy milk/)
  })

  it('a Responses profile with an image: /responses, the vision header, the person initiates', async () => {
    writeCopilotAccounts(d.home, [await copilotAccount(github, ADA)])
    const t = await turn(await session('cpr'), 'what is this?', {
      images: [{ media_type: 'image/png', data: PNG }],
    })
    assert.equal(t.outcome, 'completed', t.detail)
    const r = t.sent[0]!
    assert.equal(r.path, '/responses')
    assert.equal(r.body.model, 'gpt-5.2-codex')
    assert.equal(r.headers['copilot-vision-request'], 'true')
    assert.equal(r.headers['x-initiator'], 'user')
  })

  it('a Copilot token within the minute of its expiry is exchanged again before the step', async () => {
    const ada = await copilotAccount(github, ADA, { expires: Date.now() + 30_000 })
    writeCopilotAccounts(d.home, [ada])
    const before = exchanges()
    const t = await turn(await session(), 'refresh first')
    assert.equal(t.outcome, 'completed', t.detail)
    assert.equal(exchanges(), before + 1)
    const [after] = stored()
    assert.notEqual(after.access, ada.access)
    assert.ok(after.expires > Date.now() + 60_000)
    assert.equal(after.github, ada.github, 'the GitHub token stays')
    assert.equal(t.token, after.access, 'the step sent the new token')
  })

  it('a pool of two: a 429 marks its account limited (GET /auth) and the next turn takes the other', async () => {
    const accounts = [await copilotAccount(github, ADA), await copilotAccount(github, BOB)]
    writeCopilotAccounts(d.home, accounts)
    const loginOf = (token: string) => accounts.find((a) => a.access === token)?.login
    const sid = await session()
    const first = await turn(sid, 'one')
    assert.equal(first.outcome, 'completed', first.detail)
    upstream.refuse(rateLimited(3600))
    const started = Date.now()
    const limited = await turn(sid, 'two')
    assert.equal(limited.outcome, 'failed')
    assert.equal(limited.code, 'upstream_rate_limited')
    assert.equal(
      loginOf(limited.token),
      loginOf(first.token),
      'the session stays on its account until marked',
    )
    const marked = await until(
      () => stored().find((c) => c.login === loginOf(limited.token)),
      (c) => typeof c?.limitedUntil === 'number',
      'the limit mark',
    )
    assert.ok(marked.limitedUntil >= started + 3_600_000 && marked.limitedUntil <= Date.now() + 3_600_000)
    const view = (await copilotAuth()).accounts.find((a: any) => a.label === marked.login)
    assert.equal(view.limited_until, new Date(marked.limitedUntil).toISOString())
    const next = await turn(sid, 'three')
    assert.equal(next.outcome, 'completed', next.detail)
    assert.notEqual(loginOf(next.token), loginOf(limited.token), 'the limited account is tried last')

    // The other's premium requests run out: marked until the allowance renews, not retried.
    upstream.refuse(QUOTA_EXCEEDED)
    const before = Date.now()
    const usedUp = await turn(sid, 'four')
    assert.equal(usedUp.outcome, 'failed')
    assert.equal(usedUp.sent.length, 1)
    assert.match(usedUp.detail, /premium requests .*used up/)
    const other = await until(
      () => stored().find((c) => c.login === loginOf(next.token)),
      (c) => typeof c?.limitedUntil === 'number',
      'the quota mark',
    )
    assert.equal(other.limitedUntil, nextMonthUtc(before))
  })

  it('a 401 ends the turn with run /login and expires the token; the next turn exchanges again', async () => {
    const ada = await copilotAccount(github, ADA)
    writeCopilotAccounts(d.home, [ada])
    const sid = await session()
    upstream.refuse({ status: 401, body: { error: { message: 'unauthorized: token expired' } } })
    const refused = await turn(sid, 'refused')
    assert.equal(refused.outcome, 'failed')
    assert.equal(refused.code, 'upstream_unauthorized')
    assert.match(refused.detail, /run \/login$/)
    assert.ok(!refused.detail.includes(String(ada.access)))
    await until(
      () => stored()[0],
      (c) => c.expires === 0,
      'the token marked expired',
    )
    const before = exchanges()
    const next = await turn(sid, 'again')
    assert.equal(next.outcome, 'completed', next.detail)
    assert.equal(exchanges(), before + 1)
    assert.equal(next.token, stored()[0].access)
    assert.equal((await copilotAuth()).provider.status, 'signed in')
  })

  it('a 401 after the GitHub token was revoked: the refresh is refused and the account reads signed out', async () => {
    const ada = await copilotAccount(github, ADA)
    writeCopilotAccounts(d.home, [ada])
    github.revoke(String(ada.github))
    const sid = await session()
    upstream.refuse({ status: 401, body: { error: { message: 'unauthorized: token expired' } } })
    const refused = await turn(sid, 'refused')
    assert.match(refused.detail, /run \/login$/)
    await until(
      () => stored()[0],
      (c) => c.expires === 0,
      'the token marked expired',
    )
    const next = await turn(sid, 'again')
    assert.equal(next.outcome, 'failed')
    assert.equal(next.sent.length, 0, 'nothing went to Copilot')
    assert.match(next.detail, /run \/login$/)
    const [after] = stored()
    assert.equal(after.github, undefined, 'the revoked GitHub token is forgotten')
    assert.equal((await copilotAuth()).provider.status, 'signed out')
  })

  it("a direct account sends its GitHub token with hearth's headers; a 401 asks GitHub, and a revoked token signs out", async () => {
    const token = github.issue(BOB, 'Ov23direct')
    const direct = {
      type: 'oauth',
      mode: 'direct',
      github: token,
      access: token,
      api: upstream.url,
      host: github.url,
      user_id: BOB.id,
      login: BOB.login,
    }
    writeCopilotAccounts(d.home, [direct])
    upstream.accepts = (t) => t === token
    try {
      const sid = await session()
      const t = await turn(sid, 'hello')
      assert.equal(t.outcome, 'completed', t.detail)
      const r = t.sent[0]!
      assert.equal(r.headers.authorization, `Bearer ${token}`)
      assert.equal(r.headers['user-agent'], DIRECT_HEADERS['user-agent'])
      assert.equal(r.headers['editor-version'], undefined, 'no editor headers on a direct token')
      assert.equal(r.headers['openai-intent'], 'conversation-edits')

      // A refused step: GitHub still takes the token, so the account stays as it was.
      upstream.refuse({ status: 401, body: { error: { message: 'unauthorized' } } })
      assert.match((await turn(sid, 'refused')).detail, /run \/login$/)
      await until(
        () => stored()[0],
        (c) => c.expires === 0,
        'the token marked expired',
      )
      const again = await turn(sid, 'again')
      assert.equal(again.outcome, 'completed', again.detail)
      assert.equal(stored()[0].expires, undefined, 'a direct token has no expiry again')

      // GitHub revokes it: the next check signs the account out.
      github.revoke(token)
      upstream.refuse({ status: 401, body: { error: { message: 'unauthorized' } } })
      await turn(sid, 'refused again')
      await until(
        () => stored()[0],
        (c) => c.expires === 0,
        'the token marked expired',
      )
      const out = await turn(sid, 'signed out')
      assert.equal(out.outcome, 'failed')
      assert.equal(out.sent.length, 0)
      assert.equal(stored()[0].access, undefined, 'the refused token is forgotten')
      assert.equal((await copilotAuth()).provider.status, 'signed out')
    } finally {
      upstream.accepts = (t) => github.copilotTokenLive(t)
    }
  })
})
