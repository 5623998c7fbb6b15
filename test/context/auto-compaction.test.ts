// Automatic compaction before a request that would overflow the model's window (settings
// `compaction`, on by default), and kill -9 during a compaction: nothing acknowledged is
// lost, and the unfinished compaction leaves the history as it was.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  idle,
  message,
  post,
  putInput,
  startWithUpstream,
  upstreamRequests,
  waitSession,
} from '../inputs/helpers.ts'
import { change } from '../settings/helpers.ts'
import { createSession } from '../streams/sse-client.ts'

const LONG = 'x'.repeat(400) // ~100 tokens a message

/** A Chat Completions body's messages after its system message (the turn's system text). */
const conversation = (body: any) => body.messages.filter((m: any) => m.role !== 'system')

describe('automatic compaction', () => {
  it('compacts before the request that would pass the threshold, then sends the summary', async () => {
    const { d, upstream } = await startWithUpstream({ protocol: 'chat_completions' })
    try {
      const sid = await createSession(d)
      const first = (await d.request({ path: `/sessions/${sid}/context` })).json()
      // A window that holds the fixed part and about five turns at the default 90 percent.
      const fixed = first.estimated_tokens
      await change(d, 'models', {
        overrides: { 'fake-model': { context_window: Math.ceil((fixed + 560) / 0.9) } },
      })
      const c = (await d.request({ path: `/sessions/${sid}/context` })).json()
      assert.equal(c.window_tokens, Math.ceil((fixed + 560) / 0.9))
      upstream.defaultScript = { text: ['ok'] }
      let summarized = -1
      for (let i = 1; i <= 8; i++) {
        await putInput(d, sid, message(`${i} ${LONG}`))
        await waitSession(d, sid, (x) => idle(x) && x.input_order === i)
        if (summarized < 0)
          summarized = upstream.requests.findIndex((r) =>
            /You write the summary/.test(r.body.messages[0]?.content),
          )
      }
      assert.ok(summarized > 0, 'no summary request was sent')
      // The turn whose request went right after the summary sent it, with the kept turns.
      const next = upstream.requests[summarized + 1].body
      assert.match(conversation(next)[0].content, /<summary>\nok\n<\/summary>/)
      const marks = (await d.request({ path: `/sessions/${sid}/history?view=checkpoints&limit=200` }))
        .json()
        .items.filter((x: any) => x.kind === 'compaction')
      assert.ok(marks.length >= 1)
      assert.equal(marks[0].compaction.trigger, 'auto')
      // The turn that ran kept its own messages after the summary.
      assert.ok(next.messages.at(-1).content.endsWith(LONG))
      const after = (await d.request({ path: `/sessions/${sid}/context` })).json()
      assert.ok(after.estimated_tokens < after.window_tokens, JSON.stringify(after.sections))
      // Turned off, no request is compacted.
      await change(d, 'compaction', { auto: false })
      const sent = upstream.requests.length
      for (let i = 9; i <= 14; i++) {
        await putInput(d, sid, message(`${i} ${LONG}`))
        await waitSession(d, sid, (x) => idle(x) && x.input_order === i)
      }
      assert.equal(upstream.requests.length, sent + 6)
      assert.ok(
        upstream.requests
          .slice(sent)
          .every((r) => !/You write the summary/.test(r.body.messages[0]?.content)),
      )
      const off = (await d.request({ path: `/sessions/${sid}/context` })).json()
      assert.equal(off.compaction.auto, false)
      assert.ok(off.estimated_tokens > off.window_tokens * 0.9)
    } finally {
      await d.stop()
      await upstream.close()
    }
  })

  it('loses nothing acknowledged when the daemon is killed during a compaction', async () => {
    const first = await startWithUpstream({ protocol: 'chat_completions' })
    const sid = await createSession(first.d)
    for (let i = 1; i <= 4; i++) {
      await putInput(first.d, sid, message(`question ${i}`))
      await waitSession(first.d, sid, (x) => idle(x) && x.input_order === i)
    }
    const before = (await first.d.request({ path: `/sessions/${sid}/history?after=0` })).json()
    // The summary request never gets an answer: the compaction is in flight when the daemon dies.
    first.upstream.enqueue({ mode: 'stall-before-headers' })
    const sent = first.upstream.requests.length
    const compaction = post(first.d, `/sessions/${sid}/compaction`, { keep_turns: 1 }).catch((err) => err)
    await upstreamRequests(first.upstream, sent + 1)
    // An input admitted while the session is held waits for the compaction, acknowledged.
    const waiting = await putInput(first.d, sid, message('sent during the compaction'))
    assert.equal(waiting.status, 202)
    const s = (await first.d.request({ path: `/sessions/${sid}` })).json()
    assert.equal(s.pending_inputs.length, 1)
    first.d.proc.kill('SIGKILL')
    await first.d.exited
    assert.ok((await compaction) instanceof Error, 'the compaction was never answered')
    const second = await startWithUpstream({
      home: first.d.home,
      upstream: first.upstream,
      protocol: 'chat_completions',
    })
    try {
      const done = await waitSession(
        second.d,
        sid,
        (x) => idle(x) && x.input_order === 5 && x.latest_answer?.text === 'Hello, world!',
      )
      assert.equal(done.pending_inputs.length, 0)
      const input = (await second.d.request({ path: `/sessions/${sid}/inputs/${waiting.inputId}` })).json()
      assert.equal(input.delivery, 'completed')
      const history = (await second.d.request({ path: `/sessions/${sid}/history?after=0` })).json()
      // The history is the old one plus the new turn; no compaction entry was committed.
      assert.deepEqual(history.items.slice(0, before.items.length), before.items)
      assert.deepEqual(
        history.items.slice(before.items.length).map((e: any) => [e.kind, e.content.text]),
        [
          ['user', 'sent during the compaction'],
          ['assistant', 'Hello, world!'],
        ],
      )
      // The turn sent every earlier turn: nothing was compacted.
      const body = first.upstream.requests.at(-1)?.body
      assert.equal(conversation(body)[0].content, 'question 1')
      // The session can be compacted again.
      first.upstream.enqueue({ text: ['a summary'] })
      const r = (await post(second.d, `/sessions/${sid}/compaction`, { keep_turns: 1 })).json()
      assert.equal(r.compaction.outcome, 'completed')
    } finally {
      await second.d.stop()
      await first.upstream.close()
    }
  })
})
