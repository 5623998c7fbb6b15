import type { Migration } from './index.ts'

/**
 * Whether the session lets tools and commands write the repositories' `.git` (hooks and
 * config run on the host later, so it is off unless the person turns it on: docs/tools.md).
 */
export const m013GitWrites: Migration = {
  version: 13,
  name: 'git-writes',
  up(db) {
    db.exec('ALTER TABLE sessions ADD COLUMN allow_git_writes INTEGER NOT NULL DEFAULT 0')
  },
}
