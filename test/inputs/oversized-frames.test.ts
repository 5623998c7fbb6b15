// Frames stay within 1 MiB even when one event's payload does not: an answer that arrives
// as one delta of more than 1 MiB travels as an event whose frame keeps its id and says
// the content was omitted, live and on replay; the text is read through the history.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createSession, openSse, parseId, type SseFrame, type SseStream } from '../streams/sse-client.ts'
import { idle, message, putInput, type Setup, startWithUpstream, waitSession } from './helpers.ts'

const MiB = 1024 * 1024
const HUGE = 'x'.repeat(MiB + 64 * 1024)

const frameBytes = (f: SseFrame) => Buffer.byteLength(`id: ${f.id}\nevent: ${f.event}\ndata: ${f.data}\n\n`)

/** Frames up to and including the first `event`. */
async function until(s: SseStream, event: string): Promise<SseFrame[]> {
  const out: SseFrame[] = []
  for (;;) {
    const f = await s.next()
    assert.ok(f, `the stream ended before ${event}`)
    out.push(f)
    if (f.event === event) return out
  }
}

describe('oversized events', () => {
  let s: Setup
  const open: SseStream[] = []
  before(async () => {
    s = await startWithUpstream()
  })
  after(async () => {
    for (const o of open) o.destroy()
    await s.d.stop()
    await s.upstream.close()
  })

  it('keep their id and omit the content, live and on replay', async () => {
    const sid = await createSession(s.d)
    const live = openSse(s.d, `/sessions/${sid}?tail=0`)
    open.push(live)
    const [snap] = await until(live, 'snapshot')
    const from = parseId(snap.id as string).seq
    s.upstream.enqueue({ text: [HUGE] })
    assert.equal((await putInput(s.d, sid, message('a long one'))).status, 202)
    const seen = await until(live, 'run.ended')
    for (const f of seen) assert.ok(frameBytes(f) <= MiB, `a frame of ${frameBytes(f)} bytes`)
    const omitted = seen.filter((f) => JSON.parse(f.data).omitted)
    assert.ok(omitted.length >= 1, 'the oversized delta was omitted')
    for (const f of omitted) {
      assert.match(String(f.id), /^\d+:\d+$/)
      assert.deepEqual(Object.keys(JSON.parse(f.data)).sort(), ['bytes', 'omitted', 'reason'])
    }
    const done = await waitSession(s.d, sid, idle)
    const replay = openSse(s.d, `/sessions/${sid}?after_generation=1&after_seq=${from}`)
    open.push(replay)
    const again = await until(replay, 'run.ended')
    assert.deepEqual(
      again.map((f) => f.id),
      seen.map((f) => f.id),
      'replay sends the same frames',
    )
    for (const f of again) assert.ok(frameBytes(f) <= MiB)
    // A fresh snapshot fits whole: the history shows the answer cut, with its length.
    const fresh = openSse(s.d, `/sessions/${sid}?tail=200`)
    open.push(fresh)
    const [snapshot] = await until(fresh, 'snapshot')
    assert.ok(frameBytes(snapshot) <= MiB)
    const answer = JSON.parse(snapshot.data).session.history.items.find((e: any) => e.kind === 'assistant')
    assert.equal(answer.content.truncated, true)
    assert.equal(answer.content.text_bytes, HUGE.length)
    assert.equal(done.history.items.at(-1).content.text_bytes, HUGE.length)
  })
})
