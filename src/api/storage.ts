// Handlers of group `storage`.
import type { Continuations } from '../http/continuation.ts'
import { bindGroup } from '../http/route.ts'
import { storageOps } from '../schemas/storage.ts'
import type { Db } from '../store/db.ts'
import {
  databaseFigures,
  filesSection,
  imagesFigures,
  listHomeFiles,
  sessionsSection,
  totalsOf,
} from '../store/storage-report.ts'

export interface StorageDeps {
  home: string
  db: Db
  dbPath: string
  continuations: Continuations
  now: () => number
}

export function storageRoutes(d: StorageDeps) {
  return bindGroup(storageOps)({
    'storage.get': ({ query }) => {
      const limit = query.limit ?? 50
      const c = d.continuations
      const sessionsAfter = query.sessions_next
        ? c.open<string>('storage.sessions', {}, query.sessions_next)
        : null
      const filesAfter = query.files_next ? c.open<string>('storage.files', {}, query.files_next) : null
      const sessions = sessionsSection(d.db, sessionsAfter, limit)
      const now = d.now()
      const files = listHomeFiles(d.home)
      const page = filesSection(files, filesAfter, limit)
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
          files: {
            items: page.items,
            next: page.after === null ? null : c.mint('storage.files', {}, page.after),
          },
          totals: totalsOf(files, now),
          measured_at: new Date(now).toISOString(),
        },
      }
    },
  })
}
