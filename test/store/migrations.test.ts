// Migrations are numbered, forward-only and run one transaction each (design §4). This file
// proves, for every version an older hearth may have left on disk, that the current code
// upgrades it to exactly the schema a fresh home gets, keeping the rows it held. It loops
// over MIGRATIONS, so a new migration is covered the moment it is registered; the only
// thing its author adds is a fixture below for any table it creates or reshapes (a test
// fails, naming the table, until they do).
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import {
  type Db,
  migrate,
  openDatabase,
  openStore,
  SchemaTooNewError,
  schemaVersion,
} from '../../src/store/db.ts'
import { checkNumbering, MIGRATIONS, type Migration } from '../../src/store/migrations/index.ts'
import { runCli } from '../helpers/daemon.ts'

/**
 * Representative rows for the tables a migration creates. A fixture applies to a database
 * once the migration named `after` has run, and (when `until` is given) until the migration
 * of that name reshapes its tables; `check` runs against the fully migrated database and
 * proves the rows survived (adapt it when a later migration transforms them).
 */
interface Fixture {
  after: string
  until?: string
  /** Tables (or virtual tables) these rows fill. */
  tables: string[]
  insert: (db: Db) => void
  check: (db: Db) => void
}

const SESSION_ID = '0190b6a0-0000-7000-8000-000000000001'
const CHILD_ID = '0190b6a0-0000-7000-8000-000000000002'
const FORK_ID = '0190b6a0-0000-7000-8000-000000000003'

const FIXTURES: Fixture[] = [
  {
    after: 'meta',
    tables: ['meta'],
    insert: (db) => {
      db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run('fixture', Buffer.from([1, 2, 3]))
    },
    check: (db) => {
      const row = db.prepare('SELECT value FROM meta WHERE key = ?').get('fixture') as { value: Buffer }
      assert.deepEqual([...row.value], [1, 2, 3])
    },
  },
  {
    after: 'sessions',
    tables: ['families', 'sessions', 'events', 'visits', 'entries', 'deleted_sessions', 'session_search'],
    insert: (db) => {
      db.prepare('INSERT INTO families (root_id, revision, deleting) VALUES (?, 1, NULL)').run(SESSION_ID)
      const session = db.prepare(
        `INSERT INTO sessions (id, parent_id, root_id, depth, name, automatic_name, workspace,
           provider_profile, model, selection, revision, desired_revision, creation, created_at, activity_ms)
         VALUES (?, ?, ?, ?, 'fixture', 'fixture', '/tmp/ws', 'default', 'm', '{}', 1, 1, 'new',
           '2026-01-01T00:00:00.000Z', 1767225600000)`,
      )
      session.run(SESSION_ID, null, SESSION_ID, 0)
      session.run(CHILD_ID, SESSION_ID, SESSION_ID, 1)
      db.prepare(
        `INSERT INTO events (session_id, generation, seq, kind, at, payload)
         VALUES (?, 1, 1, 'created', '2026-01-01T00:00:00.000Z', '{"a":1}')`,
      ).run(SESSION_ID)
      db.prepare(
        "INSERT INTO visits (session_id, visit_id, visited_at, opens) VALUES (?, 'v1', '2026-01-01T00:00:00.000Z', 1)",
      ).run(SESSION_ID)
      db.prepare(
        "INSERT INTO entries (session_id, position, kind, created_at, content) VALUES (?, 0, 'user', '2026-01-01T00:00:00.000Z', 'hello')",
      ).run(SESSION_ID)
      db.prepare("INSERT INTO deleted_sessions (id, deleted_at) VALUES (?, '2026-01-01T00:00:00.000Z')").run(
        '0190b6a0-0000-7000-8000-0000000000ff',
      )
      db.prepare(
        "INSERT INTO session_search (rowid, name, preview) VALUES ((SELECT rowid FROM sessions WHERE id = ?), 'fixture name', 'hello')",
      ).run(SESSION_ID)
    },
    check: (db) => {
      const ids = db.prepare('SELECT id FROM sessions WHERE id != ? ORDER BY id').pluck().all(FORK_ID)
      assert.deepEqual(ids, [SESSION_ID, CHILD_ID])
      assert.equal(db.prepare('SELECT COUNT(*) FROM events WHERE session_id = ?').pluck().get(SESSION_ID), 1)
      const hit = db
        .prepare("SELECT rowid FROM session_search WHERE session_search MATCH 'fixture'")
        .pluck()
        .all()
      assert.equal(hit.length, 1)
    },
  },
  {
    after: 'inputs',
    tables: ['inputs', 'input_images', 'entry_images', 'runs'],
    insert: (db) => {
      db.prepare(
        `INSERT INTO inputs (id, session_id, intent, client_id, text, image_count, admission, http_status,
           accepted_at, acceptance_order, delivery, decided_ms)
         VALUES ('0190b6a0-0000-7000-8000-000000000010', ?, 'h', 'c1', 'hi', 1, 'accepted', 202,
           '2026-01-01T00:00:00.000Z', 1, 'pending', NULL)`,
      ).run(SESSION_ID)
      db.prepare(
        "INSERT INTO input_images (input_id, idx, media_type, data) VALUES ('0190b6a0-0000-7000-8000-000000000010', 0, 'image/png', x'89504e47')",
      ).run()
      db.prepare(
        "INSERT INTO entry_images (session_id, position, field, media_type, data) VALUES (?, 0, 'image_0', 'image/png', x'89504e47')",
      ).run(SESSION_ID)
      db.prepare(
        `INSERT INTO runs (id, session_id, grp, through_order, start_generation, start_seq, started_at)
         VALUES ('0190b6a0-0000-7000-8000-000000000020', ?, 1, 1, 1, 1, '2026-01-01T00:00:00.000Z')`,
      ).run(SESSION_ID)
    },
    check: (db) => {
      const input = db.prepare('SELECT delivery, acceptance_order FROM inputs').get() as Record<
        string,
        unknown
      >
      assert.deepEqual({ ...input }, { delivery: 'pending', acceptance_order: 1 })
      assert.equal(db.prepare('SELECT COUNT(*) FROM input_images').pluck().get(), 1)
      assert.equal(db.prepare('SELECT COUNT(*) FROM entry_images').pluck().get(), 1)
      assert.equal(db.prepare('SELECT COUNT(*) FROM runs WHERE ended_at IS NULL').pluck().get(), 1)
    },
  },
  {
    after: 'logins',
    tables: ['logins'],
    insert: (db) => {
      db.prepare(
        `INSERT INTO logins (id, provider, flow, intent, state, url, instructions, progress, created_ms, expires_ms)
         VALUES ('0190b6a0-0000-7000-8000-000000000030', 'chatgpt', 'browser', 'add', 'waiting',
           'https://auth.example/authorize', '', '[]', 1767225600000, 1767225900000)`,
      ).run()
    },
    check: (db) => {
      const row = db.prepare('SELECT provider, state FROM logins').get() as Record<string, unknown>
      assert.deepEqual({ ...row }, { provider: 'chatgpt', state: 'waiting' })
    },
  },
  {
    after: 'search-pending',
    tables: ['search_pending'],
    insert: (db) => {
      db.prepare('INSERT INTO search_pending (session_rowid) SELECT rowid FROM sessions WHERE id = ?').run(
        CHILD_ID,
      )
    },
    check: (db) => {
      const marked = db.prepare('SELECT COUNT(*) FROM search_pending').pluck().get()
      assert.equal(marked, 1)
    },
  },
  {
    after: 'approvals',
    tables: ['approvals'],
    insert: (db) => {
      db.prepare(
        `INSERT INTO approvals (id, session_id, run_id, call_id, tool, summary, effect, arguments, state, created_at)
         VALUES ('0190b6a0-0000-7000-8000-000000000040', ?, '0190b6a0-0000-7000-8000-000000000041', 'call_1',
           'shell', 'ls', 'exec', '{}', 'pending', '2026-01-01T00:00:00.000Z')`,
      ).run(SESSION_ID)
    },
    check: (db) => {
      const row = db.prepare('SELECT tool, state FROM approvals').get() as Record<string, unknown>
      assert.deepEqual({ ...row }, { tool: 'shell', state: 'pending' })
    },
  },
  {
    after: 'context-compaction',
    tables: ['context_requests', 'entry_sizes'],
    insert: (db) => {
      db.prepare(
        `INSERT INTO context_requests (session_id, seq, run_id, purpose, sent_at, record)
         VALUES (?, 1, NULL, 'compaction', '2026-01-01T00:00:00.000Z', '{"id":1}')`,
      ).run(SESSION_ID)
    },
    check: (db) => {
      const row = db
        .prepare('SELECT purpose, record FROM context_requests WHERE session_id = ?')
        .get(SESSION_ID)
      assert.deepEqual({ ...(row as object) }, { purpose: 'compaction', record: '{"id":1}' })
    },
  },
  {
    after: 'work-items-and-paperclips',
    tables: ['work_items', 'session_notes', 'paperclips'],
    insert: (db) => {
      const at = '2026-01-01T00:00:00.000Z'
      const item = db.prepare(
        `INSERT INTO work_items (id, workspace, title, notes, parent_id, session_id, run_id, status, revision,
           created_at, updated_at) VALUES (?, '/tmp/ws', ?, '', ?, NULL, NULL, 'open', 1, ?, ?)`,
      )
      item.run(CHILD_ID, 'epic', null, at, at)
      item.run(FORK_ID, 'task', CHILD_ID, at, at)
      db.prepare(
        "INSERT INTO session_notes (session_id, source, text, created_at) VALUES (?, 'work', 'gone', ?)",
      ).run(SESSION_ID, at)
      db.prepare("INSERT INTO paperclips (id, text, created_at) VALUES (?, 'npm test', ?)").run(
        SESSION_ID,
        at,
      )
    },
    check: (db) => {
      const row = db.prepare('SELECT title, parent_id FROM work_items WHERE id = ?').get(FORK_ID)
      assert.deepEqual({ ...(row as object) }, { title: 'task', parent_id: CHILD_ID })
      assert.equal(db.prepare('SELECT text FROM session_notes').pluck().get(), 'gone')
      assert.equal(db.prepare('SELECT text FROM paperclips').pluck().get(), 'npm test')
    },
  },
  {
    after: 'host-probes',
    tables: ['host_probes'],
    insert: (db) => {
      db.prepare(
        "INSERT INTO host_probes (host, state, started_at, checked_at, detail, system, hearth) VALUES ('box', 'reachable', NULL, NULL, NULL, 'Linux x86_64', NULL)",
      ).run()
    },
    check: (db) => {
      assert.equal(
        db.prepare("SELECT system FROM host_probes WHERE host = 'box'").pluck().get(),
        'Linux x86_64',
      )
    },
  },
  {
    after: 'quota-readings',
    tables: ['quota_readings'],
    insert: (db) => {
      db.prepare(
        "INSERT INTO quota_readings (account, provider, limit_id, used_percent, observed_at_ms) VALUES ('a', 'p', 'l', 42, 1)",
      ).run()
    },
    check: (db) => {
      assert.equal(
        db.prepare("SELECT used_percent FROM quota_readings WHERE limit_id = 'l'").pluck().get(),
        42,
      )
    },
  },
  {
    after: 'snapshots',
    tables: ['snapshots', 'restores'],
    insert: (db) => {
      db.prepare(
        `INSERT INTO snapshots (id, session_id, run_id, restore_id, phase, roots, files, created_at)
         VALUES ('s1', ?, 'r1', NULL, 'after', '[{"root":"/w","tree":"t"}]', 3, '2026-01-01T00:00:00.000Z')`,
      ).run(SESSION_ID)
      db.prepare(
        `INSERT INTO restores (id, session_id, intent, run_id, target_snapshot_id, expected_snapshot_id,
           before_snapshot_id, state, plan, created_at)
         VALUES ('x1', ?, 'i', 'r1', 's0', 's1', 's2', 'applied', '[]', '2026-01-01T00:00:00.000Z')`,
      ).run(SESSION_ID)
    },
    check: (db) => {
      assert.equal(db.prepare("SELECT files FROM snapshots WHERE id = 's1'").pluck().get(), 3)
      assert.equal(db.prepare("SELECT state FROM restores WHERE id = 'x1'").pluck().get(), 'applied')
    },
  },
  {
    // Rows as hearth wrote them before session reads derived names and recorded cut previews.
    after: 'sessions',
    until: 'session-reads',
    tables: [],
    insert: (db) => {
      const creation = (kind: string) => JSON.stringify({ submitted: { kind }, resolved: {} })
      db.prepare('INSERT INTO families (root_id, revision) VALUES (?, 1)').run(FORK_ID)
      db.prepare(
        `INSERT INTO sessions (id, parent_id, root_id, depth, name, automatic_name, workspace,
           provider_profile, model, selection, revision, desired_revision, creation, created_at, activity_ms,
           preview_text)
         VALUES (?, NULL, ?, 0, '', '', '/tmp/ws', 'default', 'm', '{}', 1, 1, ?,
           '2026-01-01T00:00:00.000Z', 1767225600000, ?)`,
      ).run(FORK_ID, FORK_ID, creation('fork'), 'p'.repeat(200))
      db.prepare(
        `INSERT INTO events (session_id, generation, seq, kind, at, payload)
         VALUES (?, 1, 1, 'session.created', '2026-01-01T00:00:00.000Z', ?)`,
      ).run(FORK_ID, JSON.stringify({ creation: JSON.parse(creation('fork')) }))
      for (const [position, kind, text] of [
        [1, 'user', '\n  Plan the   quarterly\treport\nsecond line'],
        [2, 'assistant', 'Sure'],
        [3, 'user', 'later message'],
      ] as const)
        db.prepare(
          "INSERT INTO entries (session_id, position, kind, created_at, content) VALUES (?, ?, ?, '2026-01-01T00:00:00.000Z', ?)",
        ).run(FORK_ID, position, kind, JSON.stringify({ text }))
    },
    check: (db) => {
      const row = db
        .prepare('SELECT creation, automatic_name, preview_truncated FROM sessions WHERE id = ?')
        .get(FORK_ID) as { creation: string; automatic_name: string; preview_truncated: number }
      assert.equal(JSON.parse(row.creation).submitted.kind, 'forked')
      assert.equal(row.automatic_name, 'Plan the quarterly report')
      assert.equal(row.preview_truncated, 1)
      const payload = db
        .prepare("SELECT payload FROM events WHERE session_id = ? AND kind = 'session.created'")
        .pluck()
        .get(FORK_ID) as string
      assert.equal(JSON.parse(payload).creation.submitted.kind, 'forked')
    },
  },
]

/** Position of a named migration (its version), or undefined when it is not registered. */
function versionOf(name: string): number | undefined {
  const i = MIGRATIONS.findIndex((m) => m.name === name)
  return i < 0 ? undefined : i + 1
}

function fixturesAt(version: number): Fixture[] {
  return FIXTURES.filter((f) => {
    const from = versionOf(f.after)
    const to = f.until === undefined ? undefined : versionOf(f.until)
    return from !== undefined && from <= version && (to === undefined || version < to)
  })
}

/** User tables and virtual tables (not SQLite's own, not FTS shadow tables). */
function userTables(db: Db): string[] {
  const rows = db.pragma('table_list') as { schema: string; name: string; type: string }[]
  return rows
    .filter((r) => r.schema === 'main' && (r.type === 'table' || r.type === 'virtual'))
    .map((r) => r.name)
    .filter((n) => !n.startsWith('sqlite_'))
    .sort()
}

function normalizeSql(sql: string | null): string | null {
  if (sql === null) return null
  return sql
    .replace(/--[^\n]*/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/\s*([(),])\s*/g, '$1')
    .trim()
}

/** Everything sqlite_master says about the schema, in a stable order. */
function schemaOf(db: Db): { type: string; name: string; tbl_name: string; sql: string | null }[] {
  const rows = db
    .prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")
    .all() as { type: string; name: string; tbl_name: string; sql: string | null }[]
  return rows
    .map((r) => ({ ...r, sql: normalizeSql(r.sql) }))
    .sort((a, b) => (a.type + a.name < b.type + b.name ? -1 : a.type + a.name > b.type + b.name ? 1 : 0))
}

describe('state.db migrations', () => {
  let dir: string
  let freshSchema: ReturnType<typeof schemaOf>
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-migrations-'))
    const fresh = openStore(join(dir, 'fresh.db'))
    freshSchema = schemaOf(fresh)
    assert.equal(schemaVersion(fresh), MIGRATIONS.length)
    fresh.close()
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('registers migrations numbered 1..n with unique names', () => {
    assert.ok(MIGRATIONS.length >= 1)
    checkNumbering(MIGRATIONS)
    for (const [i, m] of MIGRATIONS.entries()) assert.equal(m.version, i + 1, m.name)
    const names = MIGRATIONS.map((m) => m.name)
    assert.equal(new Set(names).size, names.length, `duplicate migration names: ${names}`)
    for (const n of names) assert.match(n, /^[a-z][a-z0-9_-]*$/)
  })

  it('fixtures name registered migrations only when they are active', () => {
    // A fixture whose `after` is unknown is inert (its migration is not registered yet);
    // one whose `until` is registered must also have its `after` registered before it.
    for (const f of FIXTURES) {
      const from = versionOf(f.after)
      const to = f.until === undefined ? undefined : versionOf(f.until)
      if (to !== undefined) assert.ok(from !== undefined && from < to, `fixture ${f.after}..${f.until}`)
    }
  })

  for (let k = 0; k < MIGRATIONS.length; k++) {
    it(`upgrades a database left at version ${k} to version ${MIGRATIONS.length}`, () => {
      const path = join(dir, `from-${k}.db`)
      // As a hearth that knew only the first k migrations left it, with rows in every table.
      const old = openDatabase(path)
      assert.equal(migrate(old, MIGRATIONS, k), k)
      const active = fixturesAt(k)
      const tables = userTables(old)
      const filled = new Set(active.flatMap((f) => f.tables))
      const missing = tables.filter((t) => !filled.has(t))
      assert.deepEqual(
        missing,
        [],
        `tables at version ${k} without a fixture in test/store/migrations.test.ts: ${missing.join(', ')}`,
      )
      old.transaction(() => {
        for (const f of active) f.insert(old)
      })()
      for (const t of tables) {
        assert.ok(
          (old.prepare(`SELECT COUNT(*) FROM "${t}"`).pluck().get() as number) > 0,
          `fixture left ${t} empty at version ${k}`,
        )
      }
      old.close()

      // The current hearth opens it, as the daemon does at start.
      const db = openStore(path)
      try {
        assert.equal(schemaVersion(db), MIGRATIONS.length)
        assert.deepEqual(schemaOf(db), freshSchema)
        assert.equal(db.pragma('integrity_check', { simple: true }), 'ok')
        assert.deepEqual(db.pragma('foreign_key_check'), [])
        for (const f of active) f.check(db)
        // Opening again is a no-op.
        assert.equal(migrate(db), MIGRATIONS.length)
        assert.deepEqual(schemaOf(db), freshSchema)
      } finally {
        db.close()
      }
    })
  }

  it('refuses a database newer than this code, changing nothing', () => {
    const path = join(dir, 'newer.db')
    const db = openStore(path)
    db.pragma(`user_version = ${MIGRATIONS.length + 1}`)
    const schemaBefore = schemaOf(db)
    db.close()

    assert.throws(
      () => openStore(path),
      (err: unknown) => {
        assert.ok(err instanceof SchemaTooNewError)
        assert.equal(err.found, MIGRATIONS.length + 1)
        assert.equal(err.supported, MIGRATIONS.length)
        assert.match(
          err.message,
          new RegExp(`schema version ${MIGRATIONS.length + 1}, newer than this hearth`),
        )
        assert.match(err.message, /upgrade hearth/)
        return true
      },
    )
    const again = openDatabase(path)
    assert.equal(schemaVersion(again), MIGRATIONS.length + 1)
    assert.deepEqual(schemaOf(again), schemaBefore)
    again.close()
  })

  it('the daemon refuses to start on a newer database and says why', async () => {
    const home = join(dir, 'newer-home')
    mkdirSync(home, { mode: 0o700 })
    const db = openStore(join(home, 'state.db'))
    db.pragma(`user_version = ${MIGRATIONS.length + 1}`)
    db.close()
    const r = await runCli(['daemon', '--home', home, '--port', '0'])
    assert.equal(r.code, 1, r.stderr)
    assert.match(r.stderr, /newer than this hearth/)
    assert.match(r.stderr, /upgrade hearth/)
    assert.equal(existsSync(join(home, 'daemon.json')), false)
    const check = openDatabase(join(home, 'state.db'))
    assert.equal(schemaVersion(check), MIGRATIONS.length + 1)
    check.close()
  })

  it('rolls a failing migration back entirely and keeps the steps before it', () => {
    const path = join(dir, 'failing.db')
    const steps: Migration[] = [
      { version: 1, name: 'first', up: (db) => db.exec('CREATE TABLE a (x INTEGER) STRICT') },
      {
        version: 2,
        name: 'second',
        up: (db) => {
          db.exec('CREATE TABLE b (y INTEGER) STRICT; INSERT INTO a VALUES (1)')
          db.pragma('user_version = 99') // even a bump made inside the step is undone
          throw new Error('boom')
        },
      },
      { version: 3, name: 'third', up: (db) => db.exec('CREATE TABLE c (z INTEGER) STRICT') },
    ]
    const db = openDatabase(path)
    assert.throws(() => migrate(db, steps), /state\.db migration 2 \(second\) failed: boom/)
    assert.equal(schemaVersion(db), 1)
    assert.deepEqual(userTables(db), ['a'])
    assert.equal(db.prepare('SELECT COUNT(*) FROM a').pluck().get(), 0)
    db.close()

    // Nothing half-done survives a reopen, and a fixed step then runs from version 1.
    const reopened = openDatabase(path)
    assert.equal(schemaVersion(reopened), 1)
    assert.deepEqual(userTables(reopened), ['a'])
    steps[1] = { version: 2, name: 'second', up: (d) => d.exec('CREATE TABLE b (y INTEGER) STRICT') }
    assert.equal(migrate(reopened, steps), 3)
    assert.deepEqual(userTables(reopened), ['a', 'b', 'c'])
    reopened.close()
  })

  it('checks migration numbering before touching the database', () => {
    const noop = (name: string, version: number): Migration => ({ version, name, up: () => {} })
    assert.throws(() => checkNumbering([noop('a', 1), noop('b', 3)]), /Migration b is numbered 3, expected 2/)
    assert.throws(() => checkNumbering([noop('a', 1), noop('b', 1)]), /Migration b is numbered 1, expected 2/)
    assert.throws(() => checkNumbering([noop('a', 0)]), /Migration a is numbered 0, expected 1/)
    checkNumbering([])
    checkNumbering([noop('a', 1), noop('b', 2)])

    const path = join(dir, 'misnumbered.db')
    const db = openDatabase(path)
    const created: Migration = { version: 1, name: 'a', up: (d) => d.exec('CREATE TABLE a (x INTEGER)') }
    assert.throws(() => migrate(db, [created, noop('b', 3)]), /numbered 3, expected 2/)
    assert.equal(schemaVersion(db), 0)
    assert.deepEqual(userTables(db), [])
    assert.throws(() => migrate(db, [created], 2), RangeError)
    assert.equal(schemaVersion(db), 0)
    db.close()
  })
})
