// What the snapshot parts of the daemon are built from (wired in src/daemon/services.ts).
import type { SessionsCore } from '../../sessions/core.ts'
import type { RootTree, SnapshotEngine } from '../../snapshots/engine.ts'
import type { SnapshotRow, SnapshotRows } from '../../store/snapshots.ts'

export interface SnapshotSettings {
  enabled: boolean
  max_file_bytes: number
  keep_runs: number
  max_total_bytes: number
}

export interface SnapshotDeps {
  core: SessionsCore
  engine: SnapshotEngine
  rows: SnapshotRows
  /** hearth's home: its snapshots are never captured themselves. */
  home: string
  /** The `tools.snapshots` settings as they are now. */
  settings: () => SnapshotSettings
  onError: (err: unknown) => void
}

export function treesOf(row: SnapshotRow): RootTree[] {
  return JSON.parse(row.roots) as RootTree[]
}

/** The engine with the file-size bound of the settings now (it reads its options at each call). */
export function engineNow(d: SnapshotDeps): SnapshotEngine {
  d.engine.opts.maxFileBytes = d.settings().max_file_bytes
  return d.engine
}
