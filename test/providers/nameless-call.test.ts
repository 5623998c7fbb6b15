// A tool call the model sent without a name is answered like a call of an unknown tool:
// the real daemon against the fake upstream, each OpenAI wire. The call reaches the run
// engine, gets an error result naming the tools there are, and goes back to the model
// with that result; the model then answers.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { answer, callTools, toolCallsOf, toolResultsOf } from '../fakes/tool-script.ts'
import { type AgentSetup, historyOf, newSession, runMessage, startAgent } from '../tools/agent-helpers.ts'

for (const protocol of ['chat_completions', 'responses'] as const) {
  describe(`a nameless tool call (${protocol})`, () => {
    let s: AgentSetup
    before(async () => {
      s = await startAgent({ protocol, tools: { approval_policy: 'auto' } })
    })
    after(async () => {
      await s.d.stop()
      await s.upstream.close()
    })

    it('gets an error result the model reads, like an unknown tool', async () => {
      const sid = await newSession(s)
      s.upstream.enqueue(callTools({ name: '', arguments: { path: 'a.txt' }, id: 'call_noname' }), (req) =>
        answer(`Noted: ${toolResultsOf(req.body)[0]?.output}`),
      )
      const read = await runMessage(s, sid, 'go')
      assert.equal(read.status.phase, 'idle')
      assert.equal(s.upstream.requests.length, 2, 'the result went back to the model')
      const second = s.upstream.requests[1].body
      assert.deepEqual(
        toolCallsOf(second).map((c) => c.call_id),
        ['call_noname'],
      )
      const [result] = toolResultsOf(second)
      assert.equal(result.call_id, 'call_noname')
      assert.match(result.output, /^No tool \(the call names none\); tools: .*\bread\b/)
      const history = await historyOf(s.d, sid)
      const entry = history.find((e: any) => e.kind === 'tool_result')
      assert.equal(entry?.content.outcome, 'error', JSON.stringify(history))
    })
  })
}
