// The agent loop: a run goes on while the model asks for tools; every call and result is a
// history entry and events on the session stream, replayed identically after a reconnect;
// results go back to the model in the request's own wire format, in the model's order.
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, beforeEach, describe, it } from 'node:test'
import { answer, callTools, toolCallsOf, toolResultsOf } from '../fakes/tool-script.ts'
import { openSse } from '../streams/sse-client.ts'
import { type AgentSetup, historyOf, newSession, runMessage, startAgent } from './agent-helpers.ts'

for (const protocol of ['responses', 'chat_completions'] as const) {
  describe(`agent loop (${protocol})`, () => {
    let s: AgentSetup
    before(async () => {
      s = await startAgent({ protocol, tools: { approval_policy: 'auto' } })
    })
    after(async () => {
      await s.d.stop()
      await s.upstream.close()
    })
    beforeEach(() => {
      s.upstream.reset()
    })

    it('a read call, its result to the model, then the answer: entries and events, replayed alike', async () => {
      writeFileSync(join(s.workspace, 'notes.txt'), 'alpha\nbeta\n')
      const sid = await newSession(s)
      const live = openSse(s.d, `/sessions/${sid}?tail=0`)
      const snapshot = await live.next()
      assert.equal(snapshot?.event, 'snapshot')
      s.upstream.enqueue(
        callTools(
          { name: 'read', arguments: { path: 'notes.txt' }, id: 'call_r1' },
          { text: 'Let me look.' },
        ),
        (req) => answer(`It says ${JSON.stringify(toolResultsOf(req.body)[0]?.output)}`),
      )
      const read = await runMessage(s, sid, 'what is in notes.txt?')
      assert.equal(read.status.phase, 'idle')
      // The second request replays the call and carries its result.
      assert.equal(s.upstream.requests.length, 2)
      const second = s.upstream.requests[1].body
      assert.deepEqual(toolCallsOf(second), [
        { call_id: 'call_r1', name: 'read', arguments: '{"path":"notes.txt"}' },
      ])
      const results = toolResultsOf(second)
      assert.equal(results.length, 1)
      assert.match(results[0].output, /alpha/)
      assert.match(results[0].output, /beta/)
      // The first request offered the tools with their schemas.
      const tools = s.upstream.requests[0].body.tools.map((t: any) => t.name ?? t.function?.name)
      for (const name of ['read', 'write', 'edit', 'shell', 'job_start'])
        assert.ok(tools.includes(name), name)

      const history = await historyOf(s.d, sid)
      assert.deepEqual(
        history.map((e: any) => e.kind),
        ['user', 'assistant', 'tool_call', 'tool_result', 'assistant'],
      )
      const [user, asked, call, result, final] = history
      assert.equal(asked.content.text, 'Let me look.')
      assert.deepEqual(
        asked.content.tool_calls.map((c: any) => c.id),
        ['call_r1'],
      )
      assert.equal(call.content.name, 'read')
      assert.equal(call.content.effect, 'read')
      assert.equal(call.content.summary.includes('notes.txt'), true)
      assert.equal(result.content.call_id, 'call_r1')
      assert.equal(result.content.outcome, 'ok')
      assert.equal(result.group, call.group, 'the call and its result share a display group')
      assert.notEqual(call.group, user.group)
      assert.equal(asked.group, user.group)
      assert.match(final.content.text, /alpha/)

      const frames = await live.collect((f) => f.event === 'run.ended')
      live.destroy()
      const kinds = frames.map((f) => f.event)
      for (const k of ['tool.started', 'tool.ended']) assert.ok(kinds.includes(k), k)
      assert.ok(kinds.indexOf('tool.started') < kinds.indexOf('tool.ended'))
      const started = JSON.parse(frames.find((f) => f.event === 'tool.started')!.data).payload
      assert.deepEqual(
        { call_id: started.call_id, name: started.name, effect: started.effect },
        { call_id: 'call_r1', name: 'read', effect: 'read' },
      )
      const ended = JSON.parse(frames.find((f) => f.event === 'tool.ended')!.data).payload
      assert.equal(ended.outcome, 'ok')
      assert.match(ended.output, /alpha/)

      // A client that reconnects from the snapshot's cursor replays the very same frames.
      const again = openSse(s.d, `/sessions/${sid}`, { headers: { 'last-event-id': String(snapshot?.id) } })
      const replayed = await again.collect((f) => f.event === 'run.ended')
      again.destroy()
      assert.deepEqual(
        replayed.map((f) => [f.event, f.id, f.data]),
        frames.map((f) => [f.event, f.id, f.data]),
      )
    })

    it('parallel reads in one step run concurrently; results go back in the model order', async () => {
      writeFileSync(join(s.workspace, 'a.txt'), 'AAA\n')
      writeFileSync(join(s.workspace, 'b.txt'), 'BBB\n')
      const sid = await newSession(s)
      s.upstream.enqueue(
        callTools(
          { name: 'read', arguments: { path: 'a.txt' }, id: 'call_a' },
          { name: 'read', arguments: { path: 'b.txt' }, id: 'call_b' },
        ),
        answer('done'),
      )
      await runMessage(s, sid, 'read both')
      const results = toolResultsOf(s.upstream.requests[1].body)
      assert.deepEqual(
        results.map((r) => r.call_id),
        ['call_a', 'call_b'],
      )
      assert.match(results[0].output, /AAA/)
      assert.match(results[1].output, /BBB/)
      const history = await historyOf(s.d, sid)
      const calls = history.filter((e: any) => e.kind === 'tool_call')
      const res = history.filter((e: any) => e.kind === 'tool_result')
      assert.equal(calls.length, 2)
      assert.equal(res.length, 2)
      assert.notEqual(calls[0].group, calls[1].group, 'each call has its own display group')
      for (const r of res)
        assert.equal(r.group, calls.find((c: any) => c.content.call_id === r.content.call_id).group)
    })

    it('arguments streamed in many pieces arrive whole', async () => {
      writeFileSync(join(s.workspace, 'pieces.txt'), 'in pieces\n')
      const sid = await newSession(s)
      s.upstream.enqueue(
        callTools({ name: 'read', arguments: { path: 'pieces.txt' }, pieces: 9 }),
        answer('ok'),
      )
      await runMessage(s, sid, 'read it')
      const [result] = toolResultsOf(s.upstream.requests[1].body)
      assert.match(result.output, /in pieces/)
    })

    it('invalid arguments give the model an error result and the run goes on', async () => {
      const sid = await newSession(s)
      s.upstream.enqueue(
        callTools(
          { name: 'read', arguments: '{"path": ', id: 'call_bad_json' },
          { name: 'read', arguments: { path: 7 }, id: 'call_bad_schema' },
          { name: 'no_such_tool', arguments: {}, id: 'call_unknown' },
        ),
        answer('I see'),
      )
      const read = await runMessage(s, sid, 'go')
      assert.equal(read.latest_answer.outcome, 'completed')
      const results = toolResultsOf(s.upstream.requests[1].body)
      assert.equal(results.length, 3)
      assert.match(results[0].output, /not valid JSON/)
      assert.match(results[1].output, /schema/)
      assert.match(results[2].output, /No tool no_such_tool/)
      const history = await historyOf(s.d, sid)
      const outcomes = history.filter((e: any) => e.kind === 'tool_result').map((e: any) => e.content.outcome)
      assert.deepEqual(outcomes, ['error', 'error', 'error'])
    })

    it('a read after a write in one step sees the write (model order)', async () => {
      writeFileSync(join(s.workspace, 'order.txt'), 'before\n')
      const sid = await newSession(s)
      s.upstream.enqueue(
        callTools(
          { name: 'read', arguments: { path: 'order.txt' }, id: 'call_first_read' },
          { name: 'write', arguments: { path: 'order.txt', content: 'after\n' }, id: 'call_write' },
          { name: 'read', arguments: { path: 'order.txt' }, id: 'call_second_read' },
        ),
        answer('ok'),
      )
      await runMessage(s, sid, 'go')
      const results = toolResultsOf(s.upstream.requests[1].body)
      assert.deepEqual(
        results.map((r) => r.call_id),
        ['call_first_read', 'call_write', 'call_second_read'],
      )
      assert.match(results[0].output, /before/)
      assert.match(results[2].output, /after/)
      assert.doesNotMatch(results[2].output, /before/)
    })

    it('a write in auto policy is applied and the answer follows', async () => {
      const sid = await newSession(s)
      s.upstream.enqueue(
        callTools({ name: 'write', arguments: { path: 'out.txt', content: 'written\n' } }),
        answer('wrote it'),
      )
      await runMessage(s, sid, 'write it')
      assert.equal(readFileSync(join(s.workspace, 'out.txt'), 'utf8'), 'written\n')
    })
  })
}
