// GET /storage against a real daemon: every figure is compared with what the file system
// and SQLite say about the same home, measured independently by the test.
import assert from 'node:assert/strict'
import { mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import Database from 'better-sqlite3'
import { startDaemon, type TestDaemon } from '../helpers/daemon.ts'

const RFC3339_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const DAY_MS = 24 * 3600 * 1000

interface FileItem {
  path: string
  kind: string
  bytes: number
  modified_at: string
}

/** The home's regular files as the test sees them, keyed by "/"-separated relative path. */
function walk(home: string): Map<string, { bytes: number; mtimeMs: number }> {
  const out = new Map<string, { bytes: number; mtimeMs: number }>()
  const visit = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, e.name)
      if (e.isDirectory()) visit(full)
      else if (e.isFile()) {
        const st = statSync(full)
        out.set(relative(home, full).split(sep).join('/'), { bytes: st.size, mtimeMs: st.mtimeMs })
      }
    }
  }
  visit(home)
  return out
}

function expectedKind(path: string): string {
  if (path.startsWith('backups/')) return 'backup'
  if (path.startsWith('logs/')) return 'log'
  if (path.startsWith('kernels/')) return 'kernel'
  if (/^state\.db(-wal|-shm)?$/.test(path)) return 'database'
  if (path === 'config.json' || path === 'extensions.json') return 'config'
  if (path === 'creds.json') return 'credentials'
  if (path === 'token') return 'token'
  if (path === 'daemon.json' || path === 'daemon.lock') return 'runtime'
  return 'other'
}

describe('GET /storage', () => {
  let d: TestDaemon
  const recent = Buffer.alloc(1234, 1)
  const old = Buffer.alloc(777, 2)
  const nested = Buffer.alloc(55, 3)

  before(async () => {
    // No reserve kernel: its "kernel process ready" line would grow the log at a moment of
    // its own, while the figures below are compared with the files.
    d = await startDaemon({ env: { HEARTH_KERNEL_SPARE: '0' } })
    // Backups: one made now, one a month old, one in a subfolder (recent).
    mkdirSync(join(d.home, 'backups', 'nested'), { recursive: true })
    writeFileSync(join(d.home, 'backups', 'recent.json'), recent)
    writeFileSync(join(d.home, 'backups', 'old.json'), old)
    writeFileSync(join(d.home, 'backups', 'nested', 'deep.json'), nested)
    const monthAgo = (Date.now() - 30 * DAY_MS) / 1000
    utimesSync(join(d.home, 'backups', 'old.json'), monthAgo, monthAgo)
    // pino writes the "listening" line asynchronously, just after daemon.json appears: wait
    // for it so the log's size holds still while figures are compared.
    const log = join(d.home, 'logs', 'hearth.log')
    for (let i = 0; i < 200; i++) {
      try {
        if (statSync(log).size > 0) break
      } catch {
        // not created yet
      }
      await sleep(10)
    }
  })
  after(async () => {
    await d?.stop()
  })

  async function report(query = ''): Promise<any> {
    const res = await d.request({ path: `/storage${query}` })
    assert.equal(res.status, 200, res.text())
    assert.match(String(res.headers['content-type']), /^application\/json/)
    return res.json()
  }

  it('reports the database as SQLite and the file system see it', async () => {
    const body = await report()
    const db = body.database
    const files = walk(d.home)
    assert.equal(db.main_file_bytes, statSync(join(d.home, 'state.db')).size)
    assert.equal(db.wal_bytes, files.get('state.db-wal')?.bytes ?? 0)
    assert.ok(db.wal_bytes > 0, 'the daemon writes state.db in WAL mode')
    assert.equal(db.used_bytes, (db.page_count - db.free_page_count) * db.page_size_bytes)
    assert.ok(db.free_page_count >= 0 && db.free_page_count <= db.page_count)
    // Pages still in the WAL are part of the database but not yet of the main file.
    assert.equal(db.main_file_bytes % db.page_size_bytes, 0)
    assert.ok(db.page_count * db.page_size_bytes >= db.main_file_bytes)

    // An independent reader agrees on the logical size.
    const reader = new Database(join(d.home, 'state.db'), { readonly: true })
    try {
      assert.equal(reader.pragma('page_size', { simple: true }), db.page_size_bytes)
      assert.equal(reader.pragma('page_count', { simple: true }), db.page_count)
      assert.equal(reader.pragma('freelist_count', { simple: true }), db.free_page_count)
    } finally {
      reader.close()
    }
  })

  it('main file = page_size × page_count once the WAL is checkpointed', async () => {
    // A checkpoint from a second connection is safe beside the daemon's (SQLite locks it);
    // afterwards every page lives in the main file and the WAL is empty.
    const other = new Database(join(d.home, 'state.db'))
    try {
      const [cp] = other.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[]
      assert.equal(cp.busy, 0)
    } finally {
      other.close()
    }
    const db = (await report()).database
    assert.equal(db.wal_bytes, 0)
    assert.equal(statSync(join(d.home, 'state.db-wal')).size, 0)
    assert.equal(db.main_file_bytes, db.page_count * db.page_size_bytes)
    assert.equal(db.main_file_bytes, statSync(join(d.home, 'state.db')).size)
  })

  it('lists every home file with its real size, kind and time', async () => {
    const body = await report('?limit=200')
    const items: FileItem[] = body.files.items
    assert.equal(body.files.next, null)
    const seen = walk(d.home)
    assert.deepEqual(
      items.map((f) => f.path),
      [...seen.keys()].sort(),
    )
    for (const f of items) {
      const real = seen.get(f.path)
      assert.ok(real, f.path)
      assert.equal(f.bytes, real.bytes, `${f.path} size`)
      assert.equal(f.kind, expectedKind(f.path), `${f.path} kind`)
      assert.match(f.modified_at, RFC3339_UTC_MS)
      // SQLite's shared-memory index is written through mmap by every reader (the report's
      // own queries included), so its time may move after the daemon looked at it.
      if (f.path !== 'state.db-shm') {
        assert.equal(f.modified_at, new Date(real.mtimeMs).toISOString(), `${f.path} modified_at`)
      }
    }
    const byPath = new Map(items.map((f) => [f.path, f]))
    for (const [path, kind] of [
      ['token', 'token'],
      ['daemon.json', 'runtime'],
      ['daemon.lock', 'runtime'],
      ['state.db', 'database'],
      ['state.db-wal', 'database'],
      ['logs/hearth.log', 'log'],
      ['backups/recent.json', 'backup'],
      ['backups/old.json', 'backup'],
      ['backups/nested/deep.json', 'backup'],
    ]) {
      assert.equal(byPath.get(path)?.kind, kind, path)
    }
    assert.equal(byPath.get('backups/recent.json')?.bytes, recent.length)
    assert.ok((byPath.get('logs/hearth.log')?.bytes ?? 0) > 0)
    const token = statSync(join(d.home, 'token'))
    assert.equal(byPath.get('token')?.bytes, token.size)
  })

  it('totals cover all storage, backups split by age', async () => {
    const body = await report('?limit=1')
    const t = body.totals
    const files = walk(d.home)
    let other = 0
    let kernel = 0
    for (const [path, f] of files) {
      const kind = expectedKind(path)
      if (kind === 'kernel') kernel += f.bytes
      else if (kind !== 'backup' && kind !== 'database') other += f.bytes
    }
    assert.equal(t.backup_bytes, recent.length + old.length + nested.length)
    assert.equal(t.recent_backup_count, 2)
    assert.equal(t.recent_backup_bytes, recent.length + nested.length)
    assert.equal(t.kernel_bytes, kernel)
    assert.equal(t.other_bytes, other)
    // limit pages the lists, never the totals.
    assert.deepEqual((await report('?limit=200')).totals, t)
  })

  it('pages the files with limit=1, each file exactly once', async () => {
    const expected = [...walk(d.home).keys()].sort()
    const paths: string[] = []
    let next: string | null = null
    for (let page = 0; page <= expected.length; page++) {
      const body = await report(`?limit=1${next ? `&files_next=${encodeURIComponent(next)}` : ''}`)
      assert.ok(body.files.items.length <= 1)
      paths.push(...body.files.items.map((f: FileItem) => f.path))
      next = body.files.next
      if (next === null) break
      assert.equal(typeof next, 'string')
    }
    assert.equal(next, null, 'the walk ends')
    assert.deepEqual(paths, expected)
    assert.equal(new Set(paths).size, paths.length)
  })

  it('has no sessions and no images in a new home', async () => {
    const body = await report()
    assert.deepEqual(body.sessions, {
      items: [],
      next: null,
      total_count: 0,
      total_estimated_content_bytes: 0,
    })
    assert.deepEqual(body.images, { count: 0, bytes: 0 })
  })

  it('stamps measured_at as RFC 3339 UTC with milliseconds, at request time', async () => {
    const t0 = Date.now()
    const body = await report()
    const t1 = Date.now()
    assert.match(body.measured_at, RFC3339_UTC_MS)
    const at = Date.parse(body.measured_at)
    assert.ok(at >= t0 - 1 && at <= t1 + 1, `${body.measured_at} within the request`)
  })

  it('rejects limits outside 1..200', async () => {
    for (const q of ['limit=0', 'limit=201', 'limit=-1', 'limit=abc', 'limit=']) {
      const res = await d.request({ path: `/storage?${q}` })
      assert.equal(res.status, 400, q)
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/)
      const p = res.json()
      assert.equal(p.code, 'invalid_parameter', q)
      assert.equal(p.status, 400)
    }
    assert.equal((await d.request({ path: '/storage?limit=1' })).status, 200)
    assert.equal((await d.request({ path: '/storage?limit=200' })).status, 200)
  })

  it('rejects limits that are not plain decimal integers', async () => {
    for (const q of ['limit=1.5', 'limit=1e1', 'limit=0x10', 'limit=%205']) {
      const res = await d.request({ path: `/storage?${q}` })
      assert.equal(res.status, 400, q)
      assert.equal(res.json().code, 'invalid_parameter', q)
    }
  })

  it('rejects continuations it did not mint or minted for another section', async () => {
    const first = await report('?limit=1')
    const filesNext = first.files.next as string
    assert.equal(typeof filesNext, 'string')
    const forged = `${filesNext.slice(0, -2)}${filesNext.endsWith('AA') ? 'BB' : 'AA'}`
    for (const q of [
      `files_next=${forged}`,
      `sessions_next=${encodeURIComponent(filesNext)}`,
      'files_next=x.y',
    ]) {
      const res = await d.request({ path: `/storage?${q}` })
      assert.equal(res.status, 400, q)
      assert.equal(res.json().code, 'invalid_continuation', q)
    }
  })

  it('needs the bearer token', async () => {
    const res = await d.request({ path: '/storage', noAuth: true })
    assert.equal(res.status, 401)
  })
})
