// Upstream faults seen end to end through the daemon: each fails the turn with its own
// problem code in the session's history (429 and 5xx before the first token are retried
// first), keeps what had streamed, and leaves the session ready for the next input.
import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, it } from 'node:test'
import { createSession } from '../streams/sse-client.ts'
import { idle, message, putInput, type Setup, startWithUpstream, waitSession } from './helpers.ts'

const PROTOCOLS = ['responses', 'chat_completions'] as const

for (const protocol of PROTOCOLS) {
  describe(`upstream faults through the daemon (${protocol})`, () => {
    let s: Setup
    before(async () => {
      s = await startWithUpstream({
        protocol,
        profile: { stream_idle_timeout_ms: 1_000, request_max_retries: 2 },
      })
    })
    after(async () => {
      await s.d.stop()
      await s.upstream.close()
    })
    beforeEach(() => {
      s.upstream.reset()
    })

    /** Sends one message and waits for its turn to end; returns the settled session. */
    async function turn(text = 'hi'): Promise<any> {
      const sid = await createSession(s.d)
      await putInput(s.d, sid, message(text))
      return waitSession(s.d, sid, idle)
    }
    const errorOf = (session: any) => session.history.items.find((e: any) => e.kind === 'error')
    const answerText = (session: any) =>
      session.history.items
        .filter((e: any) => e.kind === 'assistant')
        .map((e: any) => e.content.text ?? '')
        .join('')

    it('a 429 with Retry-After is retried and the turn completes', async () => {
      s.upstream.failTimes(1, 429, { retryAfter: '0' }).enqueue({ text: ['fine'] })
      const done = await turn()
      assert.equal(done.latest_answer.outcome, 'completed')
      assert.equal(s.upstream.requests.length, 2)
      assert.equal(errorOf(done), undefined)
    })

    it('a 5xx on every try fails with upstream_unavailable after the retries', async () => {
      s.upstream.failTimes(3, 503, { retryAfter: '0', message: 'overloaded right now' })
      const failed = await turn()
      assert.equal(failed.latest_answer.outcome, 'failed')
      assert.equal(s.upstream.requests.length, 3)
      assert.equal(errorOf(failed).content.problem.code, 'upstream_unavailable')
    })

    it('429 on every try fails with upstream_rate_limited', async () => {
      s.upstream.failTimes(3, 429, { retryAfter: '0', message: 'slow down' })
      const failed = await turn()
      assert.equal(errorOf(failed).content.problem.code, 'upstream_rate_limited')
      assert.match(errorOf(failed).content.problem.detail, /slow down/)
    })

    it('no headers within the idle timeout fails with upstream_timeout', async () => {
      s.upstream.enqueue({ text: ['never'], mode: 'stall-before-headers' })
      const failed = await turn()
      assert.equal(errorOf(failed).content.problem.code, 'upstream_timeout')
    })

    it('a stall mid-stream fails with upstream_timeout and keeps the streamed text', async () => {
      s.upstream.enqueue({ text: ['kept ', 'lost'], mode: 'stall', after: 1 })
      const failed = await turn()
      assert.equal(failed.latest_answer.outcome, 'failed')
      assert.equal(errorOf(failed).content.problem.code, 'upstream_timeout')
      assert.match(answerText(failed), /kept/)
    })

    it('a dropped connection fails with upstream_dropped', async () => {
      s.upstream.enqueue({ text: ['part ', 'rest'], mode: 'drop', after: 1 })
      const failed = await turn()
      assert.equal(errorOf(failed).content.problem.code, 'upstream_dropped')
      assert.match(answerText(failed), /part/)
    })

    it('a malformed frame fails with upstream_malformed', async () => {
      s.upstream.enqueue({ text: ['fine ', 'then bad'], mode: 'malformed', after: 1 })
      const failed = await turn()
      assert.equal(errorOf(failed).content.problem.code, 'upstream_malformed')
    })

    it('after every fault the same session still answers', async () => {
      const sid = await createSession(s.d)
      s.upstream.enqueue({ text: ['x'], mode: 'drop', after: 0 })
      await putInput(s.d, sid, message('one'))
      await waitSession(s.d, sid, idle)
      s.upstream.enqueue({ text: ['recovered'] })
      await putInput(s.d, sid, message('two'))
      const ok = await waitSession(s.d, sid, (x) => idle(x) && x.input_order === 2)
      assert.equal(ok.latest_answer.outcome, 'completed')
    })
  })
}
