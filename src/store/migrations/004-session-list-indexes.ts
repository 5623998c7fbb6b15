import type { Migration } from './index.ts'

/**
 * Listing indexes, rebuilt and completed (docs/performance.md, Sessions):
 *
 * - The four of 002 in ascending order. SQLite reads an ascending index backwards for
 *   `ORDER BY … DESC` at the same cost, but inserts differ: a new or freshly active session
 *   has the largest activity_ms, which in a descending index lands at the left edge of the
 *   B-tree, where every split is a full rebalance; ascending, it is an append at the right
 *   edge (SQLite's quick balance). Fewer pages are written per create and the indexes stay
 *   dense.
 * - sort=frequent over roots (or a parent's children) had no index and sorted every root
 *   on each page: 64 ms with 10,000 sessions.
 * - A workspace filter walked the roots by activity until a page was full: with few
 *   sessions in that workspace, most of the table.
 */
export const m004SessionListIndexes: Migration = {
  version: 4,
  name: 'session-list-indexes',
  up(db) {
    db.exec(`
      DROP INDEX sessions_by_parent;
      DROP INDEX sessions_by_root;
      DROP INDEX sessions_by_activity;
      DROP INDEX sessions_by_opens;
      CREATE INDEX sessions_by_parent ON sessions(parent_id, activity_ms, id);
      CREATE INDEX sessions_by_root ON sessions(root_id, activity_ms, id);
      CREATE INDEX sessions_by_activity ON sessions(activity_ms, id);
      CREATE INDEX sessions_by_opens ON sessions(opens, activity_ms, id);
      CREATE INDEX sessions_by_parent_opens ON sessions(parent_id, opens, activity_ms, id);
      CREATE INDEX sessions_by_workspace ON sessions(workspace, parent_id, activity_ms, id);
    `)
  },
}
