import { realpath, stat } from 'node:fs/promises'
import { isAbsolute, resolve } from 'node:path'
import { takeRoot } from './capture.ts'
import { changesOfRoot, diffOfFile, pairRoots } from './changes.ts'
import type { Git } from './git.ts'
import { applyRoot, checkRoot, planRoot, rootsOfPlan, withoutUncaptured } from './restore.ts'
import { checkId, rootKey, SnapshotStore } from './store.ts'

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

/**
 * The engine: `take` captures roots into their private git directories under
 * HOME/snapshots/<root key>/ (one queue per root: two sessions on one workspace take in turn);
 * `changes`/`diff` read what differs between two captures; `plan`/`apply` restore files.
 */
export class SnapshotEngine {
  readonly opts: SnapshotEngineOptions
  readonly #store: SnapshotStore
  /** root → key, as the last take found it (a root removed since still has its store). */
  readonly #keys = new Map<string, string>()

  constructor(opts: SnapshotEngineOptions) {
    this.opts = opts
    this.#store = new SnapshotStore(opts.home, opts.git ?? 'git')
  }

  /** Captures every root (a root that is not a directory is left out) under refs/hearth/<id>. */
  async take(roots: readonly string[], id: string, signal?: AbortSignal): Promise<Capture> {
    checkId(id)
    const wanted = [...new Set(roots)].map(absolute)
    const present = await Promise.all(
      wanted.map((r) =>
        stat(r).then(
          (s) => s.isDirectory(),
          () => false,
        ),
      ),
    )
    const captures = await Promise.all(
      wanted
        .filter((_, i) => present[i])
        .map(async (root) => {
          const repo = await this.#store.repo(root)
          this.#keys.set(root, repo.key)
          return { root, ...(await takeRoot(this.#store, repo, id, this.opts.maxFileBytes, signal)) }
        }),
    )
    return {
      roots: captures.map(({ root, tree }) => ({ root, tree })),
      skipped: captures.flatMap((c) => c.skipped),
    }
  }

  async changes(before: RootTree[], after: RootTree[]): Promise<FileChange[]> {
    const perRoot = await Promise.all(
      pairRoots(before, after).map(async ({ root, a, b }) =>
        changesOfRoot(await this.#git(root), root, a, b),
      ),
    )
    return perRoot.flat()
  }

  async diff(
    before: RootTree[],
    after: RootTree[],
    root: string,
    path: string,
    maxBytes: number,
  ): Promise<FileDiff> {
    const pair = pairRoots(before, after).find((r) => r.root === root)
    if (!pair) return { root, path, binary: false, truncated: false, text: '' }
    return diffOfFile(await this.#git(root), root, pair.a, pair.b, path, maxBytes)
  }

  async plan(
    target: RootTree[],
    expected: RootTree[],
    current: RootTree[],
    files?: FileRef[],
  ): Promise<RestorePlanItem[]> {
    const perRoot = await Promise.all(
      rootsOfPlan(target, expected, current).map(async ({ root, trees }) => {
        const chosen = files ? files.filter((f) => f.root === root).map((f) => f.path) : null
        if (chosen?.length === 0) return []
        const items = await planRoot(await this.#git(root), root, trees, chosen)
        return withoutUncaptured(root, items, this.opts.maxFileBytes)
      }),
    )
    return perRoot.flat()
  }

  /**
   * Puts each planned file to its target; the same plan applied again changes nothing more.
   * Every root's items are checked before any root is written, and each write is made through
   * directories held open from the root down (restore.ts): a directory swapped for a link
   * meanwhile makes the apply refuse, never write where the link leads.
   */
  async apply(plan: RestorePlanItem[]): Promise<void> {
    const home = await realpath(this.opts.home)
    const roots = [...new Set(plan.map((i) => i.root))].map((root) => ({
      root,
      items: plan.filter((i) => i.root === root),
    }))
    for (const { root, items } of roots) await checkRoot(root, items, home)
    for (const { root, items } of roots) {
      const git = await this.#git(root)
      await this.#store.queue.run(this.#keyOf(root), () => applyRoot(git, root, items, home))
    }
  }

  drop(ids: readonly string[]): Promise<void> {
    return this.#store.drop(ids)
  }

  prune(): Promise<void> {
    return this.#store.prune()
  }

  bytes(): Promise<number> {
    return this.#store.bytes()
  }

  /** A git runner (no work tree) on the root's store, for reading trees and blobs. */
  async #git(root: string): Promise<Git> {
    const key = this.#keys.get(root) ?? (await keyFromDisk(root))
    this.#keys.set(root, key)
    return this.#store.gitFor(key, null)
  }

  #keyOf(root: string): string {
    return this.#keys.get(root) as string
  }
}

function absolute(root: string): string {
  if (!isAbsolute(root)) throw new Error(`a snapshot root must be an absolute path: ${root}`)
  return resolve(root)
}

/** The key of a root's store: its real path's, or (the root gone) its own path's. */
async function keyFromDisk(root: string): Promise<string> {
  const real = await realpath(absolute(root)).catch(() => resolve(root))
  return rootKey(real)
}
