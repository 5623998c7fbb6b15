// Drain with open streams: on SIGTERM every stream ends (cleanly for a reader that keeps
// reading, zstd frames finished) and the daemon exits 0 well before the drain deadline,
// even when a reader has stopped reading and its socket is full.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startDaemon } from '../helpers/daemon.ts'
import { createSession, openSse, Patcher, parseId, visit } from './sse-client.ts'

const DRAIN_MS = 10_000

test('SIGTERM ends open session and collection streams; the daemon exits 0 promptly', async () => {
  const d = await startDaemon({ env: { HEARTH_DRAIN_MS: String(DRAIN_MS) } })
  const id = await createSession(d)
  const plain = openSse(d, `/sessions/${id}`)
  const zstd = openSse(d, `/sessions/${id}`, { zstd: true })
  const collection = openSse(d, '/sessions')
  const streams = [plain, zstd, collection]
  try {
    assert.equal((await plain.next())?.event, 'snapshot')
    assert.equal((await zstd.next())?.event, 'snapshot')
    assert.equal((await collection.next())?.event, 'ready')
    assert.equal(zstd.headers['content-encoding'], 'zstd')
    await visit(d, id)
    assert.equal((await plain.next())?.id, '1:2')
    assert.equal((await zstd.next())?.id, '1:2')
    assert.equal((await collection.next())?.event, 'session.invalidated')

    const started = Date.now()
    d.proc.kill('SIGTERM')
    for (const s of streams) {
      const rest = await s.waitEnd(DRAIN_MS / 2)
      assert.deepEqual(rest, [], 'nothing after the drain began')
      assert.equal(s.error, undefined, 'a clean end (the zstd frame is finished)')
    }
    assert.equal(await d.exited, 0)
    const ms = Date.now() - started
    console.log(`# streams ended and the daemon exited ${ms} ms after SIGTERM`)
    assert.ok(ms < 2_000, `exit took ${ms} ms`)
  } finally {
    for (const s of streams) s.destroy()
    await d.stop('SIGKILL')
  }
})

test('a reader that stopped reading does not hold the drain to its deadline', async () => {
  const d = await startDaemon({ env: { HEARTH_DRAIN_MS: String(DRAIN_MS) } })
  const id = await createSession(d)
  const stuck = openSse(d, `/sessions/${id}?tail=0`)
  const reading = openSse(d, `/sessions/${id}?tail=0`)
  try {
    assert.equal((await stuck.next())?.event, 'snapshot')
    assert.equal((await reading.next())?.event, 'snapshot')
    stuck.pause()
    // ~6 MB of events: more than the kernel buffers of the paused connection hold, less
    // than the stream's queue, so the daemon waits for the socket to drain.
    const p = new Patcher(d, id)
    await p.addSelection('e', 200)
    for (let i = 0; i < 120; i++) await p.toggle()
    const head = 2 + 120
    for (;;) {
      const f = await reading.next()
      assert.ok(f)
      if (parseId(f.id as string).seq === head) break
    }

    const started = Date.now()
    d.proc.kill('SIGTERM')
    assert.deepEqual(await reading.waitEnd(DRAIN_MS / 2), [])
    assert.equal(await d.exited, 0)
    const ms = Date.now() - started
    console.log(
      `# with a stuck reader the daemon exited ${ms} ms after SIGTERM (drain deadline ${DRAIN_MS} ms)`,
    )
    assert.ok(ms < DRAIN_MS / 3, `exit took ${ms} ms`)
  } finally {
    stuck.destroy()
    reading.destroy()
    await d.stop('SIGKILL')
  }
})
