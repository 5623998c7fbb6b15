// The session stream (GET /sessions/{id}, Accept: text/event-stream) against the real
// daemon: snapshot, live events, resume by query or Last-Event-ID, reset, parameter errors,
// zstd decoded incrementally, heartbeats, deletion, and a slow reader's overflow with
// bounded memory.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startDaemon, type TestDaemon } from '../helpers/daemon.ts'
import {
  configure,
  createSession,
  deleteLeaf,
  openSse,
  Patcher,
  parseId,
  produceVisits,
  rssKiB,
  type SseFrame,
  type SseStream,
  visit,
} from './sse-client.ts'

const HEARTBEAT_MS = 250
const WARM_UP = 400
const BIG_EVENTS = 600
const MiB = 1024 * 1024

let d: TestDaemon

before(async () => {
  d = await startDaemon({ env: { HEARTH_SSE_HEARTBEAT_MS: String(HEARTBEAT_MS) } })
})
after(async () => {
  assert.equal(await d.stop(), 0)
})

const open: SseStream[] = []
function sse(path: string, opts: Parameters<typeof openSse>[2] = {}): SseStream {
  const s = openSse(d, path, opts)
  open.push(s)
  return s
}
after(() => {
  for (const s of open) s.destroy()
})

/** Every log frame: id `<generation>:<sequence>` matching its envelope, at most 1 MiB. */
function checkFrame(f: SseFrame): void {
  assert.ok(Buffer.byteLength(f.data) + (f.id?.length ?? 0) + f.event.length + 20 <= MiB, 'frame over 1 MiB')
  if (f.event.startsWith('session.') && f.event !== 'session.deleted') {
    assert.ok(f.id, `${f.event} carries an id`)
    const data = JSON.parse(f.data)
    if (data.omitted === true) return // over 1 MiB: the content is read from the resource
    assert.equal(f.id, `${data.generation}:${data.sequence}`)
    assert.equal(data.kind, f.event)
  }
}

async function frames(s: SseStream, n: number): Promise<SseFrame[]> {
  const out: SseFrame[] = []
  while (out.length < n) {
    const f = await s.next()
    assert.ok(f, `stream ended after ${out.length} of ${n} frames`)
    checkFrame(f)
    out.push(f)
  }
  return out
}

const seqs = (fs: SseFrame[]) => fs.map((f) => parseId(f.id as string).seq)
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

describe('session stream', () => {
  test('a fresh subscription gets a snapshot, then live events with ids', async () => {
    const id = await createSession(d)
    const s = sse(`/sessions/${id}`)
    await s.opened
    assert.equal(s.status, 200)
    assert.match(String(s.headers['content-type']), /^text\/event-stream/)
    assert.equal(s.headers['content-encoding'], undefined)
    const [snap] = await frames(s, 1)
    assert.equal(snap.event, 'snapshot')
    assert.equal(snap.id, '1:1') // session.created is the first event
    const session = JSON.parse(snap.data).session
    assert.equal(session.id, id)
    assert.deepEqual(session.cursor, { generation: 1, sequence: 1 })

    await visit(d, id)
    await configure(d, id, { name: 'renamed' })
    const live = await frames(s, 2)
    assert.deepEqual(
      live.map((f) => [f.id, f.event]),
      [
        ['1:2', 'session.visited'],
        ['1:3', 'session.configured'],
      ],
    )
    assert.equal(JSON.parse(live[1].data).payload.changes.name, 'renamed')
  })

  test('a reconnect with after_generation and after_seq gets exactly the missed events, then live', async () => {
    const id = await createSession(d)
    const first = sse(`/sessions/${id}`)
    const [snap] = await frames(first, 1)
    await produceVisits(d, id, 5, 1)
    const seen = await frames(first, 5)
    assert.deepEqual(seqs(seen), range(2, 6))
    first.destroy()

    await produceVisits(d, id, 700, 4) // more than one replay batch (512)
    const { generation, seq } = parseId(seen[2].id as string) // resume from the middle
    assert.equal(generation, parseId(snap.id as string).generation)
    const again = sse(`/sessions/${id}?after_generation=${generation}&after_seq=${seq}`)
    const replayed = await frames(again, 706 - seq)
    assert.deepEqual(seqs(replayed), range(seq + 1, 706))
    assert.ok(replayed.every((f) => f.event === 'session.visited'))
    await visit(d, id)
    assert.deepEqual(seqs(await frames(again, 1)), [707])
  })

  test('Last-Event-ID resumes like the query cursor; the query wins when both are sent', async () => {
    const id = await createSession(d)
    await produceVisits(d, id, 4, 1) // seq 2..5
    const s = sse(`/sessions/${id}`, { headers: { 'last-event-id': '1:3' } })
    assert.deepEqual(seqs(await frames(s, 2)), [4, 5])
    await visit(d, id)
    assert.deepEqual(seqs(await frames(s, 1)), [6])

    const both = sse(`/sessions/${id}?after_generation=1&after_seq=5`, {
      headers: { 'last-event-id': '1:1' },
    })
    await visit(d, id)
    assert.deepEqual(seqs(await frames(both, 2)), [6, 7])

    const caughtUp = sse(`/sessions/${id}`, { headers: { 'last-event-id': '1:7' } })
    await caughtUp.opened
    await visit(d, id)
    assert.deepEqual(seqs(await frames(caughtUp, 1)), [8])
  })

  test('an unknown generation or a sequence past the head gets reset, then a fresh snapshot', async () => {
    const id = await createSession(d)
    await produceVisits(d, id, 3, 1) // head 1:4
    for (const [path, headers, reason] of [
      [`/sessions/${id}?after_generation=9&after_seq=2`, {}, 'generation_superseded'],
      [`/sessions/${id}?after_generation=1&after_seq=50`, {}, 'sequence_ahead'],
      [`/sessions/${id}`, { 'last-event-id': '2:1' }, 'generation_superseded'],
      [`/sessions/${id}`, { 'last-event-id': '1:5' }, 'sequence_ahead'],
    ] as const) {
      const s = sse(path, { headers })
      const [reset, snap] = await frames(s, 2)
      assert.equal(reset.event, 'reset', path)
      assert.equal(reset.id, undefined)
      assert.deepEqual(JSON.parse(reset.data), { reason, cursor: { generation: 1, sequence: 4 } })
      assert.equal(snap.event, 'snapshot')
      assert.equal(snap.id, '1:4')
      s.destroy()
    }
    const s = sse(`/sessions/${id}?after_generation=1&after_seq=99`)
    await frames(s, 2)
    await visit(d, id)
    assert.deepEqual(seqs(await frames(s, 1)), [5]) // live after the fresh snapshot
  })

  test('invalid positions and view are 400; unknown and deleted sessions are 404 and 410', async () => {
    const id = await createSession(d)
    const problem = async (path: string, headers: Record<string, string> = {}) => {
      const r = await d.request({ path, headers: { accept: 'text/event-stream', ...headers } })
      return { status: r.status, code: r.status === 200 ? undefined : r.json().code }
    }
    assert.deepEqual(await problem(`/sessions/${id}?after_generation=1`), {
      status: 400,
      code: 'invalid_stream_position',
    })
    assert.deepEqual(await problem(`/sessions/${id}?after_seq=1`), {
      status: 400,
      code: 'invalid_stream_position',
    })
    assert.deepEqual(await problem(`/sessions/${id}`, { 'last-event-id': 'nonsense' }), {
      status: 400,
      code: 'invalid_stream_position',
    })
    assert.equal((await problem(`/sessions/${id}?view=configuration`)).status, 400)
    assert.equal((await problem(`/sessions/01a20000-0000-7000-8000-000000000000`)).status, 404)
    await deleteLeaf(d, id)
    assert.deepEqual(await problem(`/sessions/${id}`), { status: 410, code: 'session_deleted' })
  })

  test('deleting the session ends its stream with session.deleted', async () => {
    const id = await createSession(d)
    const s = sse(`/sessions/${id}`)
    await frames(s, 1)
    await deleteLeaf(d, id)
    const rest = await s.waitEnd()
    assert.deepEqual(
      rest.map((f) => f.event),
      ['session.deleted'],
    )
    assert.equal(s.error, undefined)
  })

  test('zstd when accepted: each live event decodes before the stream ends; the frame ends cleanly', async () => {
    const id = await createSession(d)
    const s = sse(`/sessions/${id}`, { zstd: true, headers: { 'accept-encoding': 'gzip, zstd;q=0.9' } })
    await s.opened
    assert.equal(s.headers['content-encoding'], 'zstd')
    assert.match(String(s.headers.vary), /Accept-Encoding/i)
    const [snap] = await frames(s, 1)
    assert.equal(snap.event, 'snapshot')
    for (let i = 0; i < 3; i++) {
      await visit(d, id)
      const [f] = await frames(s, 1) // arrives while the response is still open
      assert.equal(parseId(f.id as string).seq, 2 + i)
      assert.equal(s.ended, false)
    }
    // A heartbeat is flushed through the encoder too.
    const beat = await s.nextItem(HEARTBEAT_MS * 8)
    assert.deepEqual(beat, { kind: 'comment', text: 'heartbeat' })
    // Ending the stream (deletion) finishes the zstd frame: the decoder sees no truncation.
    await deleteLeaf(d, id)
    assert.deepEqual(
      (await s.waitEnd()).map((f) => f.event),
      ['session.deleted'],
    )
    assert.equal(s.error, undefined)

    const refused = sse(`/sessions/${await createSession(d)}`, {
      headers: { 'accept-encoding': 'zstd;q=0, gzip' },
    })
    await refused.opened
    assert.equal(refused.headers['content-encoding'], undefined)
  })

  test('a heartbeat comment goes out after the configured silence (HEARTH_SSE_HEARTBEAT_MS)', async () => {
    const id = await createSession(d)
    const s = sse(`/sessions/${id}`)
    await frames(s, 1)
    const started = Date.now()
    const item = await s.nextItem(HEARTBEAT_MS * 8)
    assert.deepEqual(item, { kind: 'comment', text: 'heartbeat' })
    const waited = Date.now() - started
    assert.ok(waited >= HEARTBEAT_MS * 0.8, `heartbeat after ${waited} ms`)
    const second = await s.nextItem(HEARTBEAT_MS * 8)
    assert.deepEqual(second, { kind: 'comment', text: 'heartbeat' })
  })

  test('no frame exceeds 1 MiB: a selection is bounded, so configuration events and snapshots fit whole', async () => {
    const id = await createSession(d)
    const s = sse(`/sessions/${id}?tail=0`)
    await frames(s, 1)
    // Each addition appends an event with the whole selection, up to its 64 KiB bound;
    // past it the change is refused and appends nothing. (An event over 1 MiB, which only a
    // turn's output can make, keeps its id and omits its content: oversized-frames.test.ts.)
    const p = new Patcher(d, id)
    for (let i = 0; i < 5; i++) await p.addSelection(`k${i}_`, 50, 240, i % 2 ? 'instructions' : 'extensions')
    await assert.rejects(p.addSelection('more_', 50, 240), /400 .*selection_too_large/)
    const sizes: number[] = []
    for (const f of await frames(s, 5)) {
      const bytes = Buffer.byteLength(`id: ${f.id}\nevent: ${f.event}\ndata: ${f.data}\n\n`)
      assert.ok(bytes <= MiB, `a frame of ${bytes} bytes`)
      assert.equal(f.event, 'session.configured')
      assert.equal(JSON.parse(f.data).omitted, undefined)
      checkFrame(f)
      sizes.push(bytes)
    }
    assert.ok(sizes[4] > 60_000, `the last event carries the whole selection (${sizes[4]} bytes)`)
    // A fresh snapshot shows the selection three times and still fits, whole.
    const fresh = sse(`/sessions/${id}?tail=0`)
    const [snap] = await frames(fresh, 1)
    assert.equal(snap.event, 'snapshot')
    assert.equal(snap.id, '1:6')
    const session = JSON.parse(snap.data).session
    assert.equal(Object.keys(session.selection.overrides.extensions).length, 150)
    // And resuming works as for any other event.
    const resumed = sse(`/sessions/${id}?after_generation=1&after_seq=3`)
    assert.deepEqual(seqs(await frames(resumed, 3)), range(4, 6))
  })

  test('a reader that stops reading gets overflow and the stream closes; memory stays bounded', async (t) => {
    // A daemon of its own with a small fixed heap: its RSS settles after a short warm-up, so
    // the measurement shows what the paused stream holds, not the heap growing into its
    // default size; a queue bounded by count alone (4096 events of 50 KB) could not fit.
    const d = await startDaemon({ env: { NODE_OPTIONS: '--max-old-space-size=64 --max-semi-space-size=1' } })
    t.after(async () => {
      assert.equal(await d.stop(), 0)
    })
    const sse = (path: string) => {
      const s = openSse(d, path)
      open.push(s)
      return s
    }
    const id = await createSession(d)
    const p = new Patcher(d, id)
    await p.addSelection('e', 200) // a ~50 KB selection: each toggle appends a ~50 KB event
    for (let i = 0; i < WARM_UP; i++) await p.toggle() // the heap and caches settle first
    const s = sse(`/sessions/${id}?tail=0`)
    const [snap] = await frames(s, 1)
    const from = parseId(snap.id as string).seq
    s.pause()
    const rssBefore = await rssKiB(d.proc.pid as number)
    const started = Date.now()
    for (let i = 0; i < BIG_EVENTS; i++) await p.toggle()
    const rssAfter = await rssKiB(d.proc.pid as number)
    const head = from + BIG_EVENTS
    // The daemon keeps serving while the reader is stuck.
    const read = await d.request({ path: `/sessions/${id}?tail=0` })
    assert.equal(read.status, 200)
    assert.equal(read.json().cursor.sequence, head)
    const grewMiB = (rssAfter - rssBefore) / 1024
    console.log(
      `# ${BIG_EVENTS} events of ~50 KB (${Date.now() - started} ms) with a paused reader: daemon RSS ${(rssBefore / 1024).toFixed(1)} -> ${(rssAfter / 1024).toFixed(1)} MiB (${grewMiB >= 0 ? '+' : ''}${grewMiB.toFixed(1)} MiB)`,
    )
    assert.ok(grewMiB < 30, `RSS grew by ${grewMiB.toFixed(1)} MiB`)

    s.resume()
    const rest = await s.waitEnd(20_000)
    const last = rest.at(-1) as SseFrame
    assert.equal(last.event, 'overflow')
    assert.deepEqual(JSON.parse(last.data), { reason: 'slow_reader', queued_limit: 4096 })
    const delivered = rest.slice(0, -1)
    for (const f of delivered) checkFrame(f)
    // What did arrive is contiguous from the snapshot; the client resumes from its last id.
    assert.deepEqual(seqs(delivered), range(from + 1, from + delivered.length))
    assert.ok(delivered.length < BIG_EVENTS / 2, `${delivered.length} events delivered before the overflow`)
    console.log(`# ${delivered.length} events reached the paused reader before the overflow frame`)
    const lastId = parseId((delivered.at(-1) ?? snap).id as string)
    const resumed = sse(`/sessions/${id}?after_generation=${lastId.generation}&after_seq=${lastId.seq}`)
    const missed = await frames(resumed, head - lastId.seq)
    assert.deepEqual(seqs(missed), range(lastId.seq + 1, head))
  })
})
