// The search indexer against a real state.db: it catches up marked sessions once writes
// pause, and a failing catch-up (here: the index table is gone) neither throws out of its
// timer nor loses a mark; the next poll after the fault is repaired indexes it.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { SearchIndexer } from '../../src/sessions/search.ts'
import { type Db, openStore } from '../../src/store/db.ts'

const SESSION_ID = '0190b6a0-0000-7000-8000-000000000001'
const FTS = `CREATE VIRTUAL TABLE session_search USING fts5(name, preview, content='',
  contentless_delete=1, tokenize='trigram')`

function addSession(db: Db, name: string): number {
  db.prepare('INSERT INTO families (root_id, revision) VALUES (?, 1)').run(SESSION_ID)
  return Number(
    db
      .prepare(
        `INSERT INTO sessions (id, parent_id, root_id, depth, name, automatic_name, workspace,
           provider_profile, model, selection, revision, desired_revision, creation, created_at, activity_ms)
         VALUES (?, NULL, ?, 0, ?, '', '/tmp/ws', 'default', 'm', '{}', 1, 1, '{}',
           '2026-01-01T00:00:00.000Z', 1767225600000)`,
      )
      .run(SESSION_ID, SESSION_ID, name).lastInsertRowid,
  )
}

const count = (db: Db, sql: string, ...params: unknown[]) =>
  db
    .prepare(sql)
    .pluck()
    .get(...params) as number

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 1500 && !ok(); i++) await sleep(20)
  assert.ok(ok(), what)
}

describe('search indexer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-search-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('survives a failing catch-up and indexes the mark once it can', async () => {
    const db = openStore(join(dir, 'state.db'))
    const quiet = process.env.HEARTH_SEARCH_QUIET_MS
    process.env.HEARTH_SEARCH_QUIET_MS = '1'
    // Each catch-up tries to take a session out of the index first: counted, it tells the polls.
    let tries = 0
    const indexer = new SearchIndexer(db, (text) => {
      if (text.startsWith('DELETE FROM session_search')) tries++
      return db.prepare(text)
    })
    if (quiet === undefined) delete process.env.HEARTH_SEARCH_QUIET_MS
    else process.env.HEARTH_SEARCH_QUIET_MS = quiet
    try {
      db.exec('DROP TABLE session_search')
      const rowid = addSession(db, 'Quarterly Ledger')
      db.transaction(() => indexer.mark(rowid))()
      await until('three polls, each failing', () => tries >= 3)
      assert.equal(count(db, 'SELECT COUNT(*) FROM search_pending'), 1, 'the mark stays')
      db.exec(FTS)
      await until('caught up', () => count(db, 'SELECT COUNT(*) FROM search_pending') === 0)
      const hits = count(db, `SELECT COUNT(*) FROM session_search WHERE session_search MATCH '"ledger"'`)
      assert.equal(hits, 1)
    } finally {
      indexer.stop()
      db.close()
    }
  })
})
