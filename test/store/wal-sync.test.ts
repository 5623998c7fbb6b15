// syncWal: an fdatasync of the WAL on the thread pool, begun after the call, that an
// admission's answer waits for; none without a flusher, and a refusal once the store closed.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { syncWal, walSyncs } from '../../src/store/checkpoints.ts'
import { openDatabase, openStore } from '../../src/store/db.ts'

const dir = mkdtempSync(join(tmpdir(), 'hearth-wal-sync-'))
after(() => rmSync(dir, { recursive: true, force: true }))

describe('syncWal', () => {
  it('resolves each sync asked for, including those asked while one runs', async () => {
    const db = openStore(join(dir, 'a.db'))
    try {
      assert.equal(walSyncs(db), true)
      db.exec('CREATE TABLE t (v TEXT)')
      const syncs = [] as Promise<void>[]
      for (let i = 0; i < 5; i++) {
        db.prepare('INSERT INTO t (v) VALUES (?)').run(String(i))
        syncs.push(syncWal(db) as Promise<void>)
      }
      await Promise.all(syncs)
    } finally {
      db.close()
    }
  })

  it('is not offered without idle checkpoints, and refuses once the store is closed', async () => {
    const plain = openDatabase(join(dir, 'b.db'))
    assert.equal(walSyncs(plain), false)
    assert.equal(syncWal(plain), undefined)
    plain.close()
    const db = openStore(join(dir, 'c.db'))
    db.exec('CREATE TABLE t (v TEXT)')
    await syncWal(db)
    db.close()
    // The flusher notices the closed connection on its next poll.
    await new Promise((r) => setTimeout(r, 250))
    await assert.rejects(syncWal(db) as Promise<void>, /closed/)
  })
})
