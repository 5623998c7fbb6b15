// The chatgpt provider end to end through the daemon: sign in (against the fake issuer),
// talk through a chatgpt profile to the fake backend (headers and body rules asserted), a
// token that expires within the minute is refreshed first, and a 401 removes the account
// and fails the turn with an error ending in `run /login`.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { FakeChatgptBackend, type FakeSeat } from '../fakes/chatgpt-backend.ts'
import { signInChatgpt, startChatgptDaemon } from '../helpers/chatgpt-signin.ts'
import type { TestDaemon } from '../helpers/daemon.ts'
import { idle, message, putInput, waitSession } from '../inputs/helpers.ts'
import { fileJson } from '../settings/helpers.ts'
import { createSession } from '../streams/sse-client.ts'

const SEAT: FakeSeat = { accountId: 'ws-run', userId: 'u-run', email: 'run@example.test', plan: 'pro' }

describe('chatgpt turns through the daemon', () => {
  let fake: FakeChatgptBackend
  let d: TestDaemon

  /** Signs SEAT in through the manual flow of the login API. */
  async function signIn(): Promise<string> {
    return (await signInChatgpt(d, fake, SEAT))[0].id
  }

  before(async () => {
    fake = await FakeChatgptBackend.start()
    d = await startChatgptDaemon(fake)
  })
  after(async () => {
    await d.stop()
    await fake.close()
  })

  it('a signed-out provider fails the turn with signed_out, ending in run /login', async () => {
    const sid = await createSession(d)
    await putInput(d, sid, message('hello'))
    const failed = await waitSession(d, sid, idle)
    const error = failed.history.items.find((e: any) => e.kind === 'error')
    assert.equal(error.content.problem.code, 'signed_out')
    assert.match(error.content.problem.detail, /run \/login$/)
  })

  it('sends the turn with the account token, workspace header, session id and body rules', async () => {
    await signIn()
    const sid = await createSession(d)
    await putInput(d, sid, message('hello'))
    const done = await waitSession(d, sid, idle)
    assert.equal(done.latest_answer.outcome, 'completed', JSON.stringify(done.history.items.at(-1)))
    const sent = fake.requests.at(-1) as (typeof fake.requests)[number]
    const stored = fileJson(d.home, 'creds.json').accounts.chatgpt
    assert.equal(sent.headers.authorization, `Bearer ${stored.access}`)
    assert.equal(sent.headers['chatgpt-account-id'], SEAT.accountId)
    assert.equal(sent.headers.session_id, sid)
    assert.equal(sent.headers['openai-beta'], 'responses=experimental')
    assert.equal(sent.body.store, false)
    assert.equal(sent.body.parallel_tool_calls, true)
    assert.deepEqual(sent.body.text, { verbosity: 'low' })
    assert.deepEqual(sent.body.include, ['reasoning.encrypted_content'])
    assert.equal(sent.body.model, 'gpt-5.1-codex')
  })

  it('keeps the encrypted reasoning of a turn and replays it ahead of the answer on the next', async () => {
    const sid = await createSession(d)
    fake.enqueue({ reasoning: ['Plan ', 'it.'], text: ['First.'] })
    await putInput(d, sid, message('one'))
    const first = await waitSession(d, sid, idle)
    assert.equal(first.latest_answer.outcome, 'completed')
    const issued = fake.requests.at(-1) as (typeof fake.requests)[number]
    assert.deepEqual(issued.body.include, ['reasoning.encrypted_content'])
    // The history shows the reasoning text and the answer, never the encrypted blob.
    const shown = JSON.stringify(first.history.items)
    assert.doesNotMatch(shown, /gAAAAA|encrypted|replay/)
    await putInput(d, sid, message('two'))
    const second = await waitSession(d, sid, idle)
    assert.equal(second.latest_answer.outcome, 'completed', JSON.stringify(second.history.items.at(-1)))
    const input = (fake.requests.at(-1) as (typeof fake.requests)[number]).body.input
    const types = input.map((i: any) => i.type ?? i.role)
    assert.deepEqual(types, ['message', 'reasoning', 'message', 'message'])
    const reasoning = input[1]
    assert.deepEqual(
      Object.keys(reasoning).sort(),
      ['encrypted_content', 'summary', 'type'],
      'no id: nothing is stored',
    )
    assert.match(reasoning.encrypted_content, /^gAAAAA/)
    assert.deepEqual(reasoning.summary, [{ type: 'summary_text', text: 'Plan it.' }])
    assert.equal(input[2].role, 'assistant')
    assert.deepEqual(input[2].content, [{ type: 'output_text', text: 'First.' }])
  })

  it('refreshes a token that expires within the minute before the turn, and stores the rotation', async () => {
    fake.expiresIn = 30 // every token issued now is inside the refresh lead
    await signIn()
    const before = fileJson(d.home, 'creds.json').accounts.chatgpt
    const refreshes = fake.tokenRequests.filter((t) => t.body.grant_type === 'refresh_token').length
    const sid = await createSession(d)
    await putInput(d, sid, message('refresh first'))
    const done = await waitSession(d, sid, idle)
    assert.equal(done.latest_answer.outcome, 'completed')
    const after = fileJson(d.home, 'creds.json').accounts.chatgpt
    assert.equal(
      fake.tokenRequests.filter((t) => t.body.grant_type === 'refresh_token').length,
      refreshes + 1,
    )
    assert.notEqual(after.refresh, before.refresh, 'the rotated refresh token is stored')
    assert.equal(fake.requests.at(-1)?.headers.authorization, `Bearer ${after.access}`)
    fake.expiresIn = 3600
  })

  it('a 401 removes the account and fails the turn with an error ending in run /login', async () => {
    fake.failTimes(1, 401, { message: 'token revoked' })
    const sid = await createSession(d)
    await putInput(d, sid, message('will be refused'))
    const failed = await waitSession(d, sid, idle)
    const error = failed.history.items.find((e: any) => e.kind === 'error')
    assert.equal(error.content.problem.code, 'upstream_unauthorized')
    assert.match(error.content.problem.detail, /run \/login$/)
    const deadline = Date.now() + 5_000
    while (fileJson(d.home, 'creds.json').accounts?.chatgpt && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20))
    assert.deepEqual(fileJson(d.home, 'creds.json').accounts, {}, 'the account is gone')
    const auth = (await d.request({ path: '/auth' })).json()
    assert.equal(auth.providers[0].status, 'signed out')
  })
})
