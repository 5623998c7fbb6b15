// WAL checkpoints run when the connection stops writing, not inside a request's commit.
// wal_checkpoint(NOOP) reports the WAL without copying anything.
import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { startIdleCheckpoints, WAL_AUTOCHECKPOINT_PAGES } from '../../src/store/checkpoints.ts'
import { openDatabase, openStore } from '../../src/store/db.ts'
import { until } from '../helpers/daemon.ts'

type WalState = { busy: number; log: number; checkpointed: number }[]

const dir = mkdtempSync(join(tmpdir(), 'hearth-checkpoints-'))
after(() => rmSync(dir, { recursive: true, force: true }))

describe('idle checkpoints', () => {
  it('the store raises the automatic checkpoint threshold', () => {
    const db = openStore(join(dir, 'a.db'))
    assert.equal(db.pragma('wal_autocheckpoint', { simple: true }), WAL_AUTOCHECKPOINT_PAGES)
    assert.equal(db.pragma('cache_size', { simple: true }), -2000, 'a 2 MB page cache')
    db.close()
  })

  it('checkpoint once writes pause, never while they continue', async () => {
    const path = join(dir, 'b.db')
    const db = openDatabase(path)
    db.pragma('wal_autocheckpoint = 0')
    db.exec('CREATE TABLE t (v TEXT)')
    // A clock moved by hand, read once per poll: the polls are counted, and a slow machine
    // never makes the writing look paused.
    const clock = { ms: 0, polls: 0 }
    const now = () => {
      clock.polls++
      return clock.ms
    }
    const polled = async (n = 1) => {
      const target = clock.polls + n
      await until(`${n} polls`, () => clock.polls >= target)
    }
    const cp = startIdleCheckpoints(db, { pollMs: 5, idleMs: 300, now })
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)')
    // Writing every 10 ms for 300 ms: never quiet for 300 ms.
    for (let i = 0; i < 30; i++) {
      insert.run('x'.repeat(2000))
      clock.ms += 10
      await polled()
    }
    await polled()
    assert.equal(cp.count, 0, 'no checkpoint while writing')
    const before = db.pragma('wal_checkpoint(NOOP)') as WalState
    assert.ok(before[0].log > 0)
    assert.ok(before[0].checkpointed < before[0].log, 'nothing copied yet')
    clock.ms += 300
    await until('the checkpoint', () => cp.count > 0)
    assert.equal(cp.count, 1, 'one checkpoint after the pause')
    const [afterPause] = db.pragma('wal_checkpoint(NOOP)') as WalState
    // Copied whole, then started over at once with one frame (the header page), so the next
    // fsynced commit does not also sync a new WAL header.
    assert.deepEqual(afterPause, { busy: 0, log: 1, checkpointed: 0 }, 'the WAL was copied and restarted')
    assert.equal(db.prepare('SELECT count(*) FROM t').pluck().get(), 30, 'every row kept')
    clock.ms += 1000
    await polled(5)
    assert.equal(cp.count, 1, 'nothing written since: no further checkpoint')
    db.close()
    await sleep(20) // the timer notices the closed database and ends
  })

  it('flushes the WAL while writing through a descriptor of its own, closed with the database', async () => {
    const path = join(dir, 'c.db')
    const walDescriptors = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === `${path}-wal`
        } catch {
          return false // the directory's own descriptor, already closed
        }
      }).length
    const db = openDatabase(path)
    db.exec('CREATE TABLE t (v TEXT)')
    const sqliteOwn = walDescriptors()
    assert.equal(sqliteOwn, 1, 'SQLite holds the WAL open')
    const cp = startIdleCheckpoints(db, { pollMs: 5, idleMs: 1000 })
    db.prepare('INSERT INTO t (v) VALUES (?)').run('x'.repeat(5000))
    // The next poll sees the write and opens the WAL for its flush.
    await until('the flusher opened the WAL', () => walDescriptors() === 2)
    for (let i = 0; i < 10; i++) {
      db.prepare('INSERT INTO t (v) VALUES (?)').run('y'.repeat(5000))
      await sleep(10)
    }
    assert.equal(walDescriptors(), 2, 'and keeps that one descriptor')
    assert.equal(db.prepare('SELECT count(*) FROM t').pluck().get(), 11, 'writes unaffected')
    cp.stop()
    // A flush in flight finishes on the thread pool before its descriptor is closed.
    await until('stop closed it', () => walDescriptors() === 1)
    db.close()
    assert.equal(walDescriptors(), 0, 'SQLite closed its own')
  })
})
