// Clips (extension `paperclips`): one table, newest first. A clip never changes after it is
// made; each create and deletion is one fsynced transaction, answered once committed.
import { v7 as uuidv7 } from 'uuid'
import { PAPERCLIPS_MAX, type Paperclip, type PaperclipCreate } from '../schemas/paperclips.ts'
import { HearthError } from '../schemas/problems.ts'
import { absolutePath } from '../sessions/workspace.ts'
import { type Db, fullySynced } from '../store/db.ts'

export interface PaperclipsDeps {
  db: Db
  now: () => number
  /** Throws session_not_found / session_deleted unless the session exists. */
  requireSession: (id: string) => void
}

interface ClipRow extends Paperclip {
  seq: number
}

function toClip({ seq: _seq, ...clip }: ClipRow): Paperclip {
  return clip
}

export class Paperclips {
  readonly d: PaperclipsDeps
  constructor(deps: PaperclipsDeps) {
    this.d = deps
  }

  /** Clips before keyset `before` (a seq; null from the newest), newest first. */
  list(limit: number, before: number | null): { items: Paperclip[]; before: number | null } {
    const rows = this.d.db
      .prepare('SELECT * FROM paperclips WHERE seq < ? ORDER BY seq DESC LIMIT ?')
      .all(before ?? Number.MAX_SAFE_INTEGER, limit + 1) as ClipRow[]
    const more = rows.length > limit
    const page = more ? rows.slice(0, limit) : rows
    return { items: page.map(toClip), before: more ? (page.at(-1) as ClipRow).seq : null }
  }

  get(id: string): Paperclip {
    const row = this.d.db.prepare('SELECT * FROM paperclips WHERE id = ?').get(id) as ClipRow | undefined
    if (!row) throw new HearthError('paperclip_not_found', `No clip ${id}`)
    return toClip(row)
  }

  create(body: PaperclipCreate & { session_id?: string | null }): Paperclip {
    const workspace = body.workspace ? absolutePath(body.workspace) : null
    if (body.session_id) this.d.requireSession(body.session_id)
    const id = uuidv7()
    fullySynced(this.d.db, () =>
      this.d.db.transaction(() => {
        const { n } = this.d.db.prepare('SELECT COUNT(*) AS n FROM paperclips').get() as { n: number }
        if (n >= PAPERCLIPS_MAX)
          throw new HearthError('paperclips_full', `${n} clips are kept; delete some before adding more`)
        this.d.db
          .prepare(
            'INSERT INTO paperclips (id, text, label, workspace, session_id, created_at) VALUES (?, ?, ?, ?, ?, ?)',
          )
          .run(
            id,
            body.text,
            body.label ?? null,
            workspace,
            body.session_id ?? null,
            new Date(this.d.now()).toISOString(),
          )
      })(),
    )
    return this.get(id)
  }

  delete(id: string): { id: string; deleted_at: string } {
    const gone = fullySynced(this.d.db, () =>
      this.d.db.prepare('DELETE FROM paperclips WHERE id = ?').run(id),
    )
    if (gone.changes === 0) throw new HearthError('paperclip_not_found', `No clip ${id}`)
    return { id, deleted_at: new Date(this.d.now()).toISOString() }
  }
}
