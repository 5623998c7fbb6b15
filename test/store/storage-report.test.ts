// The storage report's pieces on real files: the sessions section (which the API test cannot
// fill without sessions), the files walk and its keyset paging, and the totals.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type Db, openStore } from '../../src/store/db.ts'
import { filesSection, listHomeFiles, sessionsSection, totalsOf } from '../../src/store/storage-report.ts'

const DAY_MS = 24 * 3600 * 1000

describe('storage report', () => {
  let home: string
  before(() => {
    home = mkdtempSync(join(tmpdir(), 'hearth-storage-'))
  })
  after(() => rmSync(home, { recursive: true, force: true }))

  describe('sessions section', () => {
    let db: Db
    const ids = [
      '0190b6a0-0000-7000-8000-00000000000a',
      '0190b6a0-0000-7000-8000-00000000000b',
      '0190b6a0-0000-7000-8000-00000000000c',
    ]
    before(() => {
      db = openStore(join(home, 'sessions.db'))
      const hasSessions =
        db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'sessions'").get() !== undefined
      if (!hasSessions) return
      db.prepare('INSERT INTO families (root_id, revision) VALUES (?, 1)').run(ids[0])
      const insert = db.prepare(
        `INSERT INTO sessions (id, parent_id, root_id, depth, name, automatic_name, workspace, provider_profile, model,
           selection, revision, desired_revision, creation, created_at, activity_ms)
         VALUES (?, ?, ?, ?, 'n', 'n', '/w', 'p', 'm', '{}', 1, 1, 'new', '2026-01-01T00:00:00.000Z', 0)`,
      )
      insert.run(ids[0], null, ids[0], 0)
      insert.run(ids[1], ids[0], ids[0], 1)
      insert.run(ids[2], ids[0], ids[0], 1)
      const event = db.prepare(
        "INSERT INTO events (session_id, generation, seq, kind, at, payload) VALUES (?, 1, ?, 'k', '2026-01-01T00:00:00.000Z', ?)",
      )
      event.run(ids[0], 1, 'x'.repeat(10))
      event.run(ids[0], 2, 'y'.repeat(5))
      event.run(ids[2], 1, 'z'.repeat(7))
    })
    after(() => db.close())

    it('pages sessions by id with counts and a complete total', (t) => {
      if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'sessions'").get() === undefined) {
        t.skip('no sessions schema yet')
        return
      }
      const first = sessionsSection(db, null, 2)
      assert.deepEqual(first.items, [
        { session_id: ids[0], event_count: 2, estimated_content_bytes: 15 },
        { session_id: ids[1], event_count: 0, estimated_content_bytes: 0 },
      ])
      assert.equal(first.after, ids[1])
      assert.equal(first.total_count, 3)
      assert.equal(first.total_estimated_content_bytes, 22)
      const second = sessionsSection(db, first.after, 2)
      assert.deepEqual(second.items, [{ session_id: ids[2], event_count: 1, estimated_content_bytes: 7 }])
      assert.equal(second.after, null)
      assert.equal(second.total_count, 3)
      // A page that ends exactly at the last session says so.
      assert.equal(sessionsSection(db, null, 3).after, null)
    })
  })

  describe('files and totals', () => {
    let dir: string
    const now = Date.now()
    before(() => {
      dir = join(home, 'h')
      mkdirSync(join(dir, 'logs'), { recursive: true })
      mkdirSync(join(dir, 'backups', 'b'), { recursive: true })
      mkdirSync(join(dir, 'kernels'), { recursive: true })
      const files: [string, number][] = [
        ['state.db', 4096],
        ['state.db-wal', 100],
        ['state.db-shm', 32],
        ['config.json', 3],
        ['extensions.json', 4],
        ['creds.json', 5],
        ['token', 43],
        ['daemon.json', 6],
        ['daemon.lock', 7],
        ['logs/hearth.log', 8],
        ['kernels/k1', 9],
        ['backups/new', 10],
        ['backups/b/week', 11],
        ['backups/old', 12],
        ['notes.txt', 13],
      ]
      for (const [p, n] of files) writeFileSync(join(dir, p), Buffer.alloc(n))
      const set = (p: string, ms: number) => utimesSync(join(dir, p), ms / 1000, ms / 1000)
      set('backups/b/week', now - 7 * DAY_MS + 60_000) // just inside the week
      set('backups/old', now - 7 * DAY_MS - 60_000) // just outside
      symlinkSync(join(dir, 'notes.txt'), join(dir, 'link-to-notes')) // not a regular file: skipped
    })

    it('classifies every regular file, sorted by path', () => {
      const files = listHomeFiles(dir)
      assert.deepEqual(
        files.map((f) => [f.path, f.kind]),
        [
          ['backups/b/week', 'backup'],
          ['backups/new', 'backup'],
          ['backups/old', 'backup'],
          ['config.json', 'config'],
          ['creds.json', 'credentials'],
          ['daemon.json', 'runtime'],
          ['daemon.lock', 'runtime'],
          ['extensions.json', 'config'],
          ['kernels/k1', 'kernel'],
          ['logs/hearth.log', 'log'],
          ['notes.txt', 'other'],
          ['state.db', 'database'],
          ['state.db-shm', 'database'],
          ['state.db-wal', 'database'],
          ['token', 'token'],
        ],
      )
      assert.equal(files.find((f) => f.path === 'token')?.bytes, 43)
    })

    it('totals: kernels, backups (recent = last 7 days), everything else but the database', () => {
      assert.deepEqual(totalsOf(listHomeFiles(dir), now), {
        kernel_bytes: 9,
        backup_bytes: 10 + 11 + 12,
        snapshot_bytes: 0,
        other_bytes: 3 + 4 + 5 + 43 + 6 + 7 + 8 + 13,
        recent_backup_bytes: 10 + 11,
        recent_backup_count: 2,
      })
    })

    it('pages files by path, each once, the last page without a continuation', () => {
      const files = listHomeFiles(dir)
      for (const limit of [1, 2, 4, files.length, files.length + 1]) {
        const seen: string[] = []
        let afterPath: string | null = null
        for (;;) {
          const page = filesSection(files, afterPath, limit)
          assert.ok(page.items.length <= limit)
          for (const item of page.items) assert.equal(Object.hasOwn(item, 'mtimeMs'), false)
          seen.push(...page.items.map((f) => f.path))
          if (page.after === null) break
          afterPath = page.after
        }
        assert.deepEqual(
          seen,
          files.map((f) => f.path),
          `limit ${limit}`,
        )
      }
    })
  })
})
