// A tool round as the log records it: the reads the kernel starts as their step ends are
// announced (`tool.started`) in the step's own commit, in the model's order, up to the first
// call that changes something; what follows them starts in turn. The provider's usage of
// each step reaches the request log although it is written with the step's commit.
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { answer, callTools } from '../fakes/tool-script.ts'
import { openSse } from '../streams/sse-client.ts'
import { agentPerSuite, newSession, runMessage } from './agent-helpers.ts'

describe('tool round commits', () => {
  const agent = agentPerSuite({ tools: { approval_policy: 'auto' } })

  it('announces the leading reads with the step, and starts a write and the reads after it in turn', async () => {
    const s = agent()
    writeFileSync(join(s.workspace, 'a.txt'), 'AAA\n')
    writeFileSync(join(s.workspace, 'b.txt'), 'BBB\n')
    const sid = await newSession(s)
    const live = openSse(s.d, `/sessions/${sid}?tail=0`)
    assert.equal((await live.next())?.event, 'snapshot')
    s.upstream.enqueue(
      callTools(
        { name: 'read', arguments: { path: 'a.txt' }, id: 'call_a' },
        { name: 'read', arguments: { path: 'a.txt' }, id: 'call_a2' },
        { name: 'write', arguments: { path: 'c.txt', content: 'CCC\n' }, id: 'call_w' },
        { name: 'read', arguments: { path: 'c.txt' }, id: 'call_c' },
      ),
      answer('done'),
    )
    await runMessage(s, sid, 'read, write, read')
    const frames = (await live.collect((f) => f.event === 'run.ended')).map((f) => ({
      event: f.event,
      ...JSON.parse(f.data),
    }))
    live.destroy()
    const round = frames.filter(
      (f) => ['tool.started', 'tool.ended'].includes(f.event) || f.payload?.entry?.kind === 'tool_call',
    )
    const named = round.map((f) =>
      f.event === 'entry.added'
        ? `call ${f.payload.entry.content.call_id}`
        : `${f.event} ${f.payload.call_id}`,
    )
    const started = named.slice(4, 6).sort()
    assert.deepEqual(named.slice(0, 4), ['call call_a', 'call call_a2', 'call call_w', 'call call_c'])
    assert.deepEqual(started, ['tool.started call_a', 'tool.started call_a2'])
    assert.deepEqual(named.slice(6, 8).sort(), ['tool.ended call_a', 'tool.ended call_a2'])
    assert.deepEqual(named.slice(8), [
      'tool.started call_w',
      'tool.ended call_w',
      'tool.started call_c',
      'tool.ended call_c',
    ])
    // The reads' announcements are in the step's commit: one transaction, one time.
    const step = round.slice(0, 6)
    assert.deepEqual(
      step.map((f) => f.sequence),
      Array.from({ length: 6 }, (_, i) => step[0].sequence + i),
    )
    assert.equal(new Set(step.map((f) => f.at)).size, 1)
    // The read after the write saw what it wrote.
    assert.equal(readFileSync(join(s.workspace, 'c.txt'), 'utf8'), 'CCC\n')
    const ended = frames.find((f) => f.event === 'tool.ended' && f.payload.call_id === 'call_c')
    assert.match(ended.payload.output, /CCC/)
  })

  it("records each step's usage in the request log", async () => {
    const s = agent()
    writeFileSync(join(s.workspace, 'u.txt'), 'usage\n')
    const sid = await newSession(s)
    s.upstream.enqueue(
      callTools(
        { name: 'read', arguments: { path: 'u.txt' } },
        { usage: { input: 30, output: 5, cached: 0 } },
      ),
      answer('done', { usage: { input: 41, output: 6, cached: 0 } }),
    )
    await runMessage(s, sid, 'read it')
    const r = await s.d.request({ path: `/sessions/${sid}/context?view=requests&limit=10` })
    assert.equal(r.status, 200)
    const steps = r.json().items.filter((x: any) => x.purpose === 'turn')
    assert.deepEqual(
      steps.map((x: any) => [x.step, x.usage?.prompt_tokens, x.usage?.completion_tokens]),
      [
        [1, 30, 5],
        [2, 41, 6],
      ],
    )
  })
})
