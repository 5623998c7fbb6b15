// Handlers of group `storage`.
import { createHash } from 'node:crypto'
import type { Continuations } from '../http/continuation.ts'
import { bindGroup } from '../http/route.ts'
import { storageOps } from '../schemas/storage.ts'
import type { Db } from '../store/db.ts'
import {
  databaseFigures,
  filesSection,
  imagesFigures,
  listHomeFiles,
  quotaReadingsFigures,
  sessionsSection,
  snapshotsFigures,
  totalsOf,
} from '../store/storage-report.ts'
import { countThatFit, MAX_JSON_BYTES } from '../util/json-budget.ts'

export interface StorageDeps {
  home: string
  db: Db
  dbPath: string
  continuations: Continuations
  now: () => number
}

/** Room for everything in a report beside the files page (figures and a sessions page). */
const REPORT_ROOM = 64 * 1024

/**
 * A files page whose JSON keeps the report within the body limit: it ends early (paths can
 * be long) and its continuation goes on after its last item.
 */
function withinLimit<T extends { path: string }>(page: { items: T[]; after: string | null }) {
  const fit = countThatFit(page.items, MAX_JSON_BYTES - REPORT_ROOM, 1)
  if (fit === page.items.length) return page
  return { items: page.items.slice(0, fit), after: page.items[fit - 1].path }
}

/**
 * Where a files page ended. A path can be 4 KiB (24 KiB of JSON in control characters) and a
 * continuation at most 2,048 characters, so the key holds a digest of the last path listed
 * and its first characters (base64).
 */
interface FilesKey {
  h: string
  p: string
}
const KEY_PREFIX_CHARS = 200

function filesKeyOf(path: string): FilesKey {
  const prefix = [...path].slice(0, KEY_PREFIX_CHARS).join('')
  return {
    h: createHash('sha256').update(path).digest('base64url'),
    p: Buffer.from(prefix).toString('base64'),
  }
}

/**
 * The path a page continues after: the listed path with that digest; when it is gone, its
 * prefix, which sorts before it, so that no file is skipped (a few may be listed again).
 */
function pathAfter(files: readonly { path: string }[], key: FilesKey): string {
  const same = files.find((f) => createHash('sha256').update(f.path).digest('base64url') === key.h)
  return same?.path ?? Buffer.from(key.p, 'base64').toString()
}

export function storageRoutes(d: StorageDeps) {
  return bindGroup(storageOps)({
    'storage.get': ({ query }) => {
      const limit = query.limit ?? 50
      const c = d.continuations
      const sessionsAfter = query.sessions_next
        ? c.open<string>('storage.sessions', {}, query.sessions_next)
        : null
      const files = listHomeFiles(d.home)
      const filesAfter = query.files_next
        ? pathAfter(files, c.open<FilesKey>('storage.files', {}, query.files_next))
        : null
      const sessions = sessionsSection(d.db, sessionsAfter, limit)
      const now = d.now()
      const page = withinLimit(filesSection(files, filesAfter, limit))
      return {
        status: 200,
        body: {
          database: databaseFigures(d.db, d.dbPath),
          sessions: {
            items: sessions.items,
            next: sessions.after === null ? null : c.mint('storage.sessions', {}, sessions.after),
            total_count: sessions.total_count,
            total_estimated_content_bytes: sessions.total_estimated_content_bytes,
          },
          images: imagesFigures(d.db),
          snapshots: snapshotsFigures(d.db, files),
          quota_readings: quotaReadingsFigures(d.db),
          files: {
            items: page.items,
            next: page.after === null ? null : c.mint('storage.files', {}, filesKeyOf(page.after)),
          },
          totals: totalsOf(files, now),
          measured_at: new Date(now).toISOString(),
        },
      }
    },
  })
}
