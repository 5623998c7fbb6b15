// Account limit marks written at run time: a chatgpt turn that the backend answers with a
// used-up plan (429 usage_limit_reached) marks that account `limitedUntil` the reset the
// backend gave (the error body's resets_at, else the used-up window's reset header, else
// Retry-After), GET /auth shows it, and the session's next turn goes to another account.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { FakeChatgptBackend, type FakeSeat } from '../fakes/chatgpt-backend.ts'
import { signInChatgpt, startChatgptDaemon } from '../helpers/chatgpt-signin.ts'
import type { TestDaemon } from '../helpers/daemon.ts'
import { idle, message, putInput, waitSession } from '../inputs/helpers.ts'
import { fileJson } from '../settings/helpers.ts'
import { createSession } from '../streams/sse-client.ts'

const SEATS: FakeSeat[] = [
  { accountId: 'ws-one', userId: 'u-one', email: 'one@example.test', plan: 'plus' },
  { accountId: 'ws-two', userId: 'u-two', email: 'two@example.test', plan: 'plus' },
]

describe('limit marks from chatgpt turns', () => {
  let fake: FakeChatgptBackend
  let d: TestDaemon
  /** Account id by workspace, as the daemon named them at sign-in. */
  const accountOf = new Map<string, string>()

  async function signIn(seat: FakeSeat): Promise<string> {
    const ids = (await signInChatgpt(d, fake, seat)).map((a) => a.id)
    return ids.find((x) => ![...accountOf.values()].includes(x)) as string
  }

  /** One turn of the session; returns the workspace header the backend saw and the outcome. */
  async function turn(sid: string): Promise<{ workspace: string; outcome: string; detail: string }> {
    const before = fake.requests.length
    await putInput(d, sid, message('go'))
    const done = await waitSession(d, sid, (s) => idle(s) && s.latest_answer !== null)
    assert.equal(fake.requests.length, before + 1)
    const error = done.history.items.findLast((e: any) => e.kind === 'error')
    return {
      workspace: String(fake.requests.at(-1)?.headers['chatgpt-account-id']),
      outcome: done.latest_answer.outcome,
      detail: error?.content.problem.detail ?? '',
    }
  }

  /** The stored account of a workspace (the mark is written just after the run ends). */
  async function stored(workspace: string, has: (c: any) => boolean): Promise<any> {
    const deadline = Date.now() + 5_000
    for (;;) {
      const list = [fileJson(d.home, 'creds.json').accounts.chatgpt].flat()
      const c = list.find((x: any) => x.accountId === workspace || x.account_id === workspace)
      const found = c ?? list.find((x: any) => JSON.stringify(x).includes(workspace))
      if (found && has(found)) return found
      if (Date.now() > deadline) throw new Error(`no such account state: ${JSON.stringify(list)}`)
      await sleep(20)
    }
  }

  before(async () => {
    fake = await FakeChatgptBackend.start()
    d = await startChatgptDaemon(fake, { profile: { request_max_retries: 0 } })
    for (const seat of SEATS) accountOf.set(seat.accountId, await signIn(seat))
  })
  after(async () => {
    await d.stop()
    await fake.close()
  })

  it('a usage-limit 429 marks the account until resets_at and the next turn uses the other', async () => {
    const sid = await createSession(d)
    const first = await turn(sid)
    assert.equal(first.outcome, 'completed')
    const resetsAt = Math.floor(Date.now() / 1000) + 7200
    fake.enqueue({ usageLimit: { resetsAt, plan: 'plus' } })
    const limited = await turn(sid)
    assert.equal(limited.outcome, 'failed')
    assert.equal(limited.workspace, first.workspace, 'the session stays on its account until marked')
    const marked = await stored(limited.workspace, (c) => c.limitedUntil !== undefined)
    assert.equal(marked.limitedUntil, resetsAt * 1000)
    const auth = (await d.request({ path: '/auth' })).json()
    const view = auth.accounts.find((a: any) => a.id === accountOf.get(limited.workspace))
    assert.equal(view.limited_until, new Date(resetsAt * 1000).toISOString())
    const next = await turn(sid)
    assert.equal(next.outcome, 'completed')
    assert.notEqual(next.workspace, limited.workspace, 'the limited account is tried last')
  })

  it('without resets_at the used-up window of the limit headers gives the reset', async () => {
    const sid = await createSession(d)
    const first = await turn(sid)
    assert.equal(first.outcome, 'completed')
    fake.enqueue({ usageLimit: { plan: 'plus' } }) // the fake reports primary 100 % used, reset in 1 h
    const before = Math.floor(Date.now() / 1000)
    const limited = await turn(sid)
    assert.equal(limited.outcome, 'failed')
    // Within the hour the fake's headers give (an earlier mark of this account would not be).
    const hour = (c: any) =>
      c.limitedUntil >= (before + 3599) * 1000 &&
      c.limitedUntil <= (Math.floor(Date.now() / 1000) + 3600) * 1000
    await stored(limited.workspace, hour)
    assert.match(limited.detail, /resets at /)
  })

  it('a plain 429 with a long Retry-After marks the account for that long', async () => {
    const sid = await createSession(d)
    assert.equal((await turn(sid)).outcome, 'completed')
    fake.failTimes(1, 429, { retryAfter: '600' })
    const started = Date.now()
    const limited = await turn(sid)
    assert.equal(limited.outcome, 'failed')
    await stored(
      limited.workspace,
      (c) => c.limitedUntil >= started + 600_000 && c.limitedUntil <= Date.now() + 600_000,
    )
  })
})
