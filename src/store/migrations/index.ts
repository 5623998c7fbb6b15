// Numbered, forward-only schema migrations. Migration N moves a database from user_version
// N-1 to N inside one transaction. Never edit a released migration: add the next one.
import type Database from 'better-sqlite3'
import { m001Meta } from './001-meta.ts'
import { m002Sessions } from './002-sessions.ts'
import { m003Inputs } from './003-inputs.ts'
import { m004SessionListIndexes } from './004-session-list-indexes.ts'
import { m005InputIndexes } from './005-input-indexes.ts'
import { m006Logins } from './006-logins.ts'
import { m007SearchPending } from './007-search-pending.ts'
import { m008SessionReads } from './008-session-reads.ts'
import { m009Approvals } from './009-approvals.ts'
import { m010ContextCompaction } from './010-context-compaction.ts'
import { m011WorkItems } from './011-work-items.ts'
import { m012HostProbes } from './012-host-probes.ts'
import { m013GitWrites } from './013-git-writes.ts'
import { m014QuotaReadings } from './014-quota-readings.ts'
import { m015Snapshots } from './015-snapshots.ts'
import { m016Elicitations } from './016-elicitations.ts'

export interface Migration {
  version: number
  name: string
  up: (db: Database.Database) => void
}

export const MIGRATIONS: readonly Migration[] = [
  m001Meta,
  m002Sessions,
  m003Inputs,
  m004SessionListIndexes,
  m005InputIndexes,
  m006Logins,
  m007SearchPending,
  m008SessionReads,
  m009Approvals,
  m010ContextCompaction,
  m011WorkItems,
  m012HostProbes,
  m013GitWrites,
  m014QuotaReadings,
  m015Snapshots,
  m016Elicitations,
]

/** Throws unless the list is numbered 1, 2, 3 … in order, with no gap or duplicate. */
export function checkNumbering(migrations: readonly Migration[]): void {
  for (const [i, m] of migrations.entries()) {
    if (m.version !== i + 1)
      throw new Error(`Migration ${m.name} is numbered ${m.version}, expected ${i + 1}`)
  }
}

checkNumbering(MIGRATIONS)
