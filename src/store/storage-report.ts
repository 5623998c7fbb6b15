// Measures what the home holds. Figures are read from the file system and SQLite at the
// moment of the request; nothing is cached, so the report is never stale.
import { readdirSync, statSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import type { Db } from './db.ts'

export type FileKind =
  | 'database'
  | 'config'
  | 'credentials'
  | 'token'
  | 'runtime'
  | 'log'
  | 'backup'
  | 'kernel'
  | 'snapshot'
  | 'other'

export interface FileEntry {
  path: string
  kind: FileKind
  bytes: number
  modified_at: string
  mtimeMs: number
}

const RECENT_BACKUP_MS = 7 * 24 * 3600 * 1000

function classify(path: string): FileKind {
  const [top] = path.split('/')
  if (top === 'backups') return 'backup'
  if (top === 'logs') return 'log'
  if (top === 'kernels') return 'kernel'
  if (top === 'snapshots') return 'snapshot'
  if (/^state\.db(-wal|-shm)?$/.test(path)) return 'database'
  if (path === 'config.json' || path === 'extensions.json') return 'config'
  if (path === 'creds.json') return 'credentials'
  if (path === 'token') return 'token'
  if (path === 'daemon.json' || path === 'daemon.lock') return 'runtime'
  return 'other'
}

/** Every regular file under the home, sorted by path (the files section's keyset order). */
export function listHomeFiles(home: string): FileEntry[] {
  const out: FileEntry[] = []
  const walk = (dir: string) => {
    let entries: import('node:fs').Dirent[]
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch {
      return // vanished while walking
    }
    for (const e of entries) {
      const full = join(dir, e.name)
      if (e.isDirectory()) walk(full)
      else if (e.isFile()) {
        try {
          const st = statSync(full)
          const path = relative(home, full).split(sep).join('/')
          out.push({
            path,
            kind: classify(path),
            bytes: st.size,
            modified_at: new Date(st.mtimeMs).toISOString(),
            mtimeMs: st.mtimeMs,
          })
        } catch {
          // removed between readdir and stat
        }
      }
    }
  }
  walk(home)
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}

function fileSize(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

export function databaseFigures(db: Db, dbPath: string) {
  const page_size_bytes = db.pragma('page_size', { simple: true }) as number
  const page_count = db.pragma('page_count', { simple: true }) as number
  const free_page_count = db.pragma('freelist_count', { simple: true }) as number
  return {
    main_file_bytes: fileSize(dbPath),
    wal_bytes: fileSize(`${dbPath}-wal`),
    page_size_bytes,
    page_count,
    free_page_count,
    used_bytes: (page_count - free_page_count) * page_size_bytes,
  }
}

export function totalsOf(files: FileEntry[], now: number) {
  let kernel_bytes = 0
  let backup_bytes = 0
  let other_bytes = 0
  let snapshot_bytes = 0
  let recent_backup_bytes = 0
  let recent_backup_count = 0
  for (const f of files) {
    if (f.kind === 'kernel') kernel_bytes += f.bytes
    else if (f.kind === 'snapshot') snapshot_bytes += f.bytes
    else if (f.kind === 'backup') {
      backup_bytes += f.bytes
      if (now - f.mtimeMs <= RECENT_BACKUP_MS) {
        recent_backup_bytes += f.bytes
        recent_backup_count += 1
      }
    } else if (f.kind !== 'database') other_bytes += f.bytes
  }
  return { kernel_bytes, backup_bytes, snapshot_bytes, other_bytes, recent_backup_bytes, recent_backup_count }
}

export interface SessionStorage {
  session_id: string
  event_count: number
  estimated_content_bytes: number
}

export interface SessionsSection {
  items: SessionStorage[]
  /** The last session id of this page when more follow. */
  after: string | null
  total_count: number
  total_estimated_content_bytes: number
}

function tableExists(db: Db, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined
}

/**
 * Per-session content estimate: the bytes of the session's event payloads. Sessions are
 * paged by id. Empty until the sessions schema exists.
 */
export function sessionsSection(db: Db, after: string | null, limit: number): SessionsSection {
  if (!tableExists(db, 'sessions') || !tableExists(db, 'events')) {
    return { items: [], after: null, total_count: 0, total_estimated_content_bytes: 0 }
  }
  const rows = db
    .prepare(
      `SELECT s.id AS session_id, COUNT(e.seq) AS event_count, COALESCE(SUM(LENGTH(e.payload)), 0) AS estimated_content_bytes
       FROM sessions s LEFT JOIN events e ON e.session_id = s.id
       WHERE s.id > ? GROUP BY s.id ORDER BY s.id LIMIT ?`,
    )
    .all(after ?? '', limit + 1) as SessionStorage[]
  const totals = db
    .prepare(
      'SELECT (SELECT COUNT(*) FROM sessions) AS n, (SELECT COALESCE(SUM(LENGTH(payload)), 0) FROM events) AS bytes',
    )
    .get() as { n: number; bytes: number }
  const more = rows.length > limit
  const items = rows.slice(0, limit)
  return {
    items,
    after: more ? items[items.length - 1].session_id : null,
    total_count: totals.n,
    total_estimated_content_bytes: totals.bytes,
  }
}

export function imagesFigures(db: Db): { count: number; bytes: number } {
  if (!tableExists(db, 'images')) return { count: 0, bytes: 0 }
  return db
    .prepare('SELECT COUNT(*) AS count, COALESCE(SUM(LENGTH(data)), 0) AS bytes FROM images')
    .get() as {
    count: number
    bytes: number
  }
}

/** How many quota readings are stored (docs/quota.md: retention bounds them). */
export function quotaReadingsFigures(db: Db): { count: number } {
  if (!tableExists(db, 'quota_readings')) return { count: 0 }
  return db.prepare('SELECT COUNT(*) AS count FROM quota_readings').get() as { count: number }
}

/** One page of the files section, keyed by path. */
export function filesSection(files: FileEntry[], after: string | null, limit: number) {
  const page = files.filter((f) => after === null || f.path > after).slice(0, limit + 1)
  const items = page.slice(0, limit).map(({ mtimeMs: _, ...f }) => f)
  return { items, after: page.length > limit ? items[items.length - 1].path : null }
}

/** Workspace snapshots: their rows, and the bytes of HOME/snapshots (docs/checkpoints.md). */
export function snapshotsFigures(db: Db, files: readonly FileEntry[]) {
  const { n } = db.prepare('SELECT COUNT(*) AS n FROM snapshots').get() as { n: number }
  const bytes = files.reduce((sum, f) => (f.kind === 'snapshot' ? sum + f.bytes : sum), 0)
  return { count: n, bytes }
}
