// WAL checkpoints run when the connection stops writing, not inside a request's commit.
// wal_checkpoint(NOOP) reports the WAL without copying anything.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { startIdleCheckpoints, WAL_AUTOCHECKPOINT_PAGES } from '../../src/store/checkpoints.ts'
import { openDatabase, openStore } from '../../src/store/db.ts'

type WalState = { log: number; checkpointed: number }[]

const dir = mkdtempSync(join(tmpdir(), 'hearth-checkpoints-'))
after(() => rmSync(dir, { recursive: true, force: true }))

describe('idle checkpoints', () => {
  it('the store raises the automatic checkpoint threshold', () => {
    const db = openStore(join(dir, 'a.db'))
    assert.equal(db.pragma('wal_autocheckpoint', { simple: true }), WAL_AUTOCHECKPOINT_PAGES)
    db.close()
  })

  it('checkpoint once writes pause, never while they continue', async () => {
    const path = join(dir, 'b.db')
    const db = openDatabase(path)
    db.pragma('wal_autocheckpoint = 0')
    db.exec('CREATE TABLE t (v TEXT)')
    const cp = startIdleCheckpoints(db, { pollMs: 5, idleMs: 300 })
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)')
    // Writing every 10 ms for 300 ms: never quiet for 300 ms.
    for (let i = 0; i < 30; i++) {
      insert.run('x'.repeat(2000))
      await sleep(10)
    }
    assert.equal(cp.count, 0, 'no checkpoint while writing')
    const before = db.pragma('wal_checkpoint(NOOP)') as WalState
    assert.ok(before[0].log > 0)
    assert.ok(before[0].checkpointed < before[0].log, 'nothing copied yet')
    await sleep(800)
    assert.equal(cp.count, 1, 'one checkpoint after the pause')
    const [afterPause] = db.pragma('wal_checkpoint(NOOP)') as WalState
    assert.equal(afterPause.checkpointed, afterPause.log, 'the whole WAL was copied')
    await sleep(400)
    assert.equal(cp.count, 1, 'nothing written since: no further checkpoint')
    db.close()
    await sleep(20) // the timer notices the closed database and ends
  })
})
