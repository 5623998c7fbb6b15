import type { Migration } from './index.ts'

/**
 * Indexes for the input queries that run on every admission and every run. The partial
 * index of 003 (`delivery IN ('pending', 'running')`) is only usable by a query with that
 * very term, so `delivery = 'pending'` (waiting count, the next run's inputs, recovery)
 * and the end of a run (`turn = ?`) scanned the whole table: seven days of inputs.
 */
export const m005InputIndexes: Migration = {
  version: 5,
  name: 'input-indexes',
  up(db) {
    db.exec(`
      CREATE INDEX inputs_waiting ON inputs(session_id, acceptance_order) WHERE delivery = 'pending';
      CREATE INDEX inputs_by_turn ON inputs(turn) WHERE turn IS NOT NULL;
    `)
  },
}
