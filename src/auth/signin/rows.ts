// The logins table. A state change bumps `revision` (the ETag); a terminal state is set
// once (`ended_ms IS NULL` guards it), so a late timeout or a cancelled exchange cannot
// overwrite the outcome that came first.
import type { AccountDescriptor, Login } from '../../schemas/auth.ts'
import type { Db } from '../../store/db.ts'

export interface LoginRow {
  id: string
  provider: string
  flow: string
  intent: string
  state: string
  url: string
  instructions: string
  progress: string
  accounts: string
  failure: string | null
  revision: number
  created_ms: number
  expires_ms: number
  ended_ms: number | null
}

export type NewLogin = Pick<
  LoginRow,
  'id' | 'provider' | 'flow' | 'intent' | 'url' | 'instructions' | 'progress' | 'created_ms' | 'expires_ms'
>

export class LoginRows {
  readonly #db: Db

  constructor(db: Db) {
    this.#db = db
  }

  get(id: string): LoginRow | undefined {
    return this.#db.prepare('SELECT * FROM logins WHERE id = ?').get(id) as LoginRow | undefined
  }

  insert(l: NewLogin): void {
    this.#db
      .prepare(
        `INSERT INTO logins (id, provider, flow, intent, state, url, instructions, progress, created_ms, expires_ms)
         VALUES (?, ?, ?, ?, 'waiting', ?, ?, ?, ?, ?)`,
      )
      .run(l.id, l.provider, l.flow, l.intent, l.url, l.instructions, l.progress, l.created_ms, l.expires_ms)
  }

  unfinished(): LoginRow[] {
    return this.#db
      .prepare('SELECT * FROM logins WHERE ended_ms IS NULL ORDER BY created_ms')
      .all() as LoginRow[]
  }

  unfinishedCount(): number {
    return (
      this.#db.prepare('SELECT COUNT(*) AS n FROM logins WHERE ended_ms IS NULL').get() as { n: number }
    ).n
  }

  /** waiting → exchanging; true for the one caller that made the move. */
  claim(id: string, progress: string): boolean {
    return (
      this.#db
        .prepare(
          `UPDATE logins SET state = 'exchanging', progress = ?, revision = revision + 1
           WHERE id = ? AND state = 'waiting'`,
        )
        .run(progress, id).changes === 1
    )
  }

  progress(id: string, text: string): void {
    this.#db
      .prepare('UPDATE logins SET progress = ?, revision = revision + 1 WHERE id = ? AND ended_ms IS NULL')
      .run(text, id)
  }

  finish(
    id: string,
    state: 'complete' | 'failed' | 'cancelled',
    f: { failure: string | null; progress: string; accounts?: unknown[]; instructions?: string },
    now: number,
  ): void {
    this.#db
      .prepare(
        `UPDATE logins SET state = ?, failure = ?, progress = ?, accounts = coalesce(?, accounts),
           instructions = coalesce(?, instructions), ended_ms = ?, revision = revision + 1
         WHERE id = ? AND ended_ms IS NULL`,
      )
      .run(
        state,
        f.failure,
        f.progress,
        f.accounts ? JSON.stringify(f.accounts) : null,
        f.instructions ?? null,
        now,
        id,
      )
  }

  failUnfinished(failure: string, now: number): number {
    return this.#db
      .prepare(
        `UPDATE logins SET state = 'failed', failure = ?, progress = 'failed', ended_ms = ?,
           revision = revision + 1 WHERE ended_ms IS NULL`,
      )
      .run(failure, now).changes
  }

  prune(before: number): number {
    return this.#db.prepare('DELETE FROM logins WHERE ended_ms < ?').run(before).changes
  }
}

export const etagOf = (row: LoginRow) => `"${row.revision}"`

export function toLogin(row: LoginRow): Login {
  return {
    id: row.id,
    provider: row.provider,
    flow: row.flow as Login['flow'],
    url: row.url,
    expires_at: new Date(row.expires_ms).toISOString(),
    state: row.state as Login['state'],
    instructions: row.instructions,
    progress: row.progress,
    accounts: JSON.parse(row.accounts) as AccountDescriptor[],
    failure: row.failure,
  }
}
