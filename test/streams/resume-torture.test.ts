// THE resume property: while a producer appends 10,000 events (8 requests in flight), a
// client cuts its connection at 1,000 random points and resumes each time from the last
// id it fully processed, alternating the query cursor and Last-Event-ID, identity and
// zstd. It must receive every event exactly once, in order: seq 2..10001, no gap, no
// duplicate, whether a resume lands in the replay of the log or in live events.
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { startDaemon } from '../helpers/daemon.ts'
import { createSession, openSse, parseId, produceVisits } from './sse-client.ts'

const EVENTS = 10_000
const CUTS = 1_000
const FIRST = 2 // seq 1 is session.created, inside the snapshot

/** A small deterministic generator, so a failure can be replayed with its seed. */
function random(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  }
}

test('10,000 events across 1,000 random disconnects arrive exactly once, in order', {
  timeout: 90_000,
}, async () => {
  const seed = Number(process.env.HEARTH_TORTURE_SEED ?? Date.now() % 1_000_000)
  const rand = random(seed)
  // The log is the daemon's database: on tmpfs when there is one, the producer is faster.
  const home = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'hearth-torture-'))
  const d = await startDaemon({ home })
  try {
    const id = await createSession(d)
    // Cut after these counts of received events: 1,000 distinct points in 1..EVENTS-1.
    const cuts = new Set<number>()
    while (cuts.size < CUTS) cuts.add(1 + Math.floor(rand() * (EVENTS - 1)))

    const first = openSse(d, `/sessions/${id}?tail=0`)
    const snap = await first.next()
    assert.equal(snap?.event, 'snapshot')
    let cursor = parseId(snap?.id as string)
    assert.deepEqual(cursor, { generation: 1, seq: 1 })
    first.destroy()

    const started = Date.now()
    let clientAtProducerEnd = 0
    const producer = produceVisits(d, id, EVENTS, 8).then(() => {
      clientAtProducerEnd = cursor.seq // before: resumes met live events; after: only the log
    })
    producer.catch(() => {})

    const received: number[] = []
    let connections = 0
    let churned = 0
    let zstdConnections = 0
    let cutsDone = 0
    const stats = { viaHeader: 0 }
    while (cursor.seq < EVENTS + 1) {
      connections++
      const viaHeader = rand() < 0.5
      const zstd = rand() < 0.3
      if (viaHeader) stats.viaHeader++
      if (zstd) zstdConnections++
      const s = viaHeader
        ? openSse(d, `/sessions/${id}`, {
            zstd,
            headers: { 'last-event-id': `${cursor.generation}:${cursor.seq}` },
          })
        : openSse(d, `/sessions/${id}?after_generation=${cursor.generation}&after_seq=${cursor.seq}`, {
            zstd,
          })
      try {
        const churn = rand()
        if (churn < 0.06) churned++
        if (churn < 0.03) continue // gone before the response: the daemon cleans up
        await s.opened
        assert.equal(s.status, 200, s.body)
        if (churn < 0.06) continue // gone before reading anything
        for (;;) {
          const f = await s.next(15_000)
          if (f === null) assert.fail(`stream ended at ${cursor.seq} (${s.error?.message ?? 'clean end'})`)
          assert.equal(f.event, 'session.visited', `frame after ${cursor.seq}: ${f.event} ${f.data}`)
          const at = parseId(f.id as string)
          assert.equal(at.generation, cursor.generation)
          // Exactly the next event: a duplicate or a gap fails here, at the first one.
          assert.equal(at.seq, cursor.seq + 1, `after ${cursor.seq} came ${at.seq} (seed ${seed})`)
          assert.equal(JSON.parse(f.data).sequence, at.seq)
          received.push(at.seq)
          cursor = at
          if (cursor.seq === EVENTS + 1) break
          if (cuts.has(received.length)) {
            cutsDone++
            break // drop the connection: whatever else was in flight is lost
          }
        }
      } finally {
        s.destroy()
      }
    }
    await producer
    const ms = Date.now() - started
    console.log(
      `# seed ${seed}: ${received.length} events over ${connections} connections (${cutsDone} cuts, ${churned} dropped before any event, ${stats.viaHeader} via Last-Event-ID, ${zstdConnections} zstd) in ${ms} ms; the client was at ${clientAtProducerEnd} when the producer finished`,
    )
    assert.equal(cutsDone, CUTS)
    assert.equal(received.length, EVENTS)
    assert.equal(received[0], FIRST)
    assert.equal(received.at(-1), EVENTS + 1)
    for (let i = 1; i < received.length; i++) assert.equal(received[i], received[i - 1] + 1)

    // And the log agrees: the session's cursor is at the last event.
    const read = await d.request({ path: `/sessions/${id}?tail=0` })
    assert.deepEqual(read.json().cursor, { generation: 1, sequence: EVENTS + 1 })
  } finally {
    assert.equal(await d.stop(), 0)
    rmSync(home, { recursive: true, force: true })
  }
})
