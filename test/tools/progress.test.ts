// A command's output on the session stream stays bounded whatever it prints: events of at
// most 64 Ki characters, at most 4 MiB streamed per call, the rest counted in the result's
// meta; the model still gets the head and tail.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { answer, callTools } from '../fakes/tool-script.ts'
import { message, putInput } from '../inputs/helpers.ts'
import { openSse } from '../streams/sse-client.ts'
import { type AgentSetup, historyOf, newSession, startAgent } from './agent-helpers.ts'

const PRINTED = 10_000_000
const STREAM_LIMIT = 4 * 1024 * 1024

describe('command output on the stream', () => {
  let s: AgentSetup
  before(async () => {
    s = await startAgent({ tools: { approval_policy: 'auto' } })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })

  it('a command printing 10 MB streams at most 4 MiB in events of at most 64 Ki characters', async () => {
    const sid = await newSession(s)
    const live = openSse(s.d, `/sessions/${sid}?tail=0`)
    await live.next()
    s.upstream.enqueue(
      // Lines of 99 characters and a newline: output arrives in many chunks, as from a build.
      callTools({ name: 'shell', arguments: { command: `yes ${'x'.repeat(98)} | head -c ${PRINTED}` } }),
      answer('Printed.'),
    )
    await putInput(s.d, sid, message('print a lot'))
    const frames = await live.collect((f) => f.event === 'run.ended', 60_000)
    live.destroy()
    const progress = frames.filter((f) => f.event === 'tool.progress').map((f) => JSON.parse(f.data).payload)
    assert.ok(progress.length > 1)
    for (const p of progress) assert.ok(p.text.length <= 64 * 1024, `an event of ${p.text.length} characters`)
    const streamed = progress.reduce((n, p) => n + Buffer.byteLength(p.text), 0)
    assert.ok(streamed <= STREAM_LIMIT, `${streamed} bytes streamed`)
    assert.ok(streamed > STREAM_LIMIT - 256 * 1024, `only ${streamed} bytes streamed`)
    const ended = frames.find((f) => f.event === 'tool.ended')
    assert.ok(ended)
    const { meta } = JSON.parse(ended.data).payload
    assert.equal(meta.exit_code, 0)
    // (A login shell's profile may say something on stderr first: it is streamed too.)
    const stderr = progress
      .filter((p) => p.stream === 'stderr')
      .reduce((n, p) => n + Buffer.byteLength(p.text), 0)
    assert.equal(streamed - stderr + meta.progress_dropped_bytes, PRINTED, 'every byte streamed or counted')
    // What the model got: the head and the tail, cut in the middle, not the whole.
    const result = (await historyOf(s.d, sid)).find((e: any) => e.kind === 'tool_result')
    assert.ok(result.content.output.length < 64 * 1024)
    assert.equal(s.upstream.requests.length, 2)
  })
})
