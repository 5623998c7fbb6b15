/**
 * Workspace snapshots: the state of the files under a set of roots, captured with git in a
 * private git directory per root in hearth's home (never the user's repository).
 */

/** One root's captured tree: the absolute root path and the git tree id. */
export interface RootTree {
  root: string
  tree: string
}

export interface SkippedFile {
  root: string
  path: string
  reason: 'too_large' | 'unreadable'
}

export interface Capture {
  roots: RootTree[]
  skipped: SkippedFile[]
}

export type ChangeStatus = 'added' | 'modified' | 'deleted' | 'renamed' | 'type_changed'

export interface FileChange {
  root: string
  path: string
  old_path: string | null
  status: ChangeStatus
  /** '100644', '100755', '120000' (a symlink), '160000' (a nested repository). */
  old_mode: string | null
  new_mode: string | null
  binary: boolean
  additions: number | null
  deletions: number | null
  size_before: number | null
  size_after: number | null
}

export interface FileDiff {
  root: string
  path: string
  binary: boolean
  truncated: boolean
  text: string
}

export interface RestorePlanItem {
  root: string
  path: string
  /** keep: the file is already at the target. */
  action: 'write' | 'delete' | 'keep'
  /** The current content differs from the expected one (someone changed it since). */
  conflict: boolean
  /** The target's mode and blob, for a write. */
  mode: string | null
  blob: string | null
}

export interface FileRef {
  root: string
  path: string
}

export interface SnapshotEngineOptions {
  home: string
  maxFileBytes: number
  git?: string
}

export class SnapshotEngine {
  readonly opts: SnapshotEngineOptions

  constructor(opts: SnapshotEngineOptions) {
    this.opts = opts
  }

  take(_roots: readonly string[], _id: string, _signal?: AbortSignal): Promise<Capture> {
    throw new Error('not yet')
  }

  changes(_before: RootTree[], _after: RootTree[]): Promise<FileChange[]> {
    throw new Error('not yet')
  }

  diff(
    _before: RootTree[],
    _after: RootTree[],
    _root: string,
    _path: string,
    _maxBytes: number,
  ): Promise<FileDiff> {
    throw new Error('not yet')
  }

  plan(
    _target: RootTree[],
    _expected: RootTree[],
    _current: RootTree[],
    _files?: FileRef[],
  ): Promise<RestorePlanItem[]> {
    throw new Error('not yet')
  }

  apply(_plan: RestorePlanItem[]): Promise<void> {
    throw new Error('not yet')
  }

  drop(_ids: readonly string[]): Promise<void> {
    throw new Error('not yet')
  }

  prune(): Promise<void> {
    throw new Error('not yet')
  }

  bytes(): Promise<number> {
    throw new Error('not yet')
  }
}
