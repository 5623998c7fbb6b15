import type { Migration } from './index.ts'

/**
 * Sessions whose search entry is missing or out of date. Writing the trigram index inside
 * every create, rename and run cost about half of the transaction's SQLite time (FTS5
 * writes a new segment per transaction: ~6 of a create's ~20 WAL pages). A change now only
 * marks its session here, in the same transaction; the search indexer brings the index up
 * to date in batches (sessions/search.ts), and searches match marked sessions by scanning
 * them, so a search never misses a change. Every session a database held before this
 * migration was indexed at once, so the table starts empty.
 */
export const m007SearchPending: Migration = {
  version: 7,
  name: 'search-pending',
  up(db) {
    db.exec('CREATE TABLE search_pending (session_rowid INTEGER PRIMARY KEY) STRICT;')
  },
}
