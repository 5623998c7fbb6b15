// A repository's `.git` holds code the host runs later, outside any sandbox: hooks, and
// config that names programs (core.hooksPath, core.fsmonitor, aliases, filters). A tool or a
// command that could write there could make the person's next `git commit` run anything. So
// `.git` is read-only to tools and commands unless the person allows git writes for the
// session (its `allow_git_writes`): the file tools refuse to write under it, and the sandbox
// binds it read-only (src/tools/exec/sandbox.ts). docs/tools.md has the threat model.
import { lstatSync, readFileSync, realpathSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { isWithin } from '../util/paths.ts'

function realOrNull(p: string): string | null {
  try {
    return realpathSync(p)
  } catch {
    return null
  }
}

/** The first line of a small text file, trimmed; null when it cannot be read. */
function firstLine(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').split('\n')[0].trim()
  } catch {
    return null
  }
}

/**
 * The git directories of a repository whose `.git` is at `dotGit`: the directory itself, or
 * for a `.git` file (a worktree, a submodule) the file, the directory it points to
 * (`gitdir: …`) and that directory's common directory (its `commondir`, where a worktree's
 * hooks and config live). Real paths; empty when there is no `.git`.
 */
function gitDirsAt(dotGit: string): string[] {
  let st: ReturnType<typeof lstatSync>
  try {
    // Checked for every command (sandbox.ts): most roots have no `.git`, and an answer of
    // `undefined` costs far less than a thrown ENOENT.
    st = lstatSync(dotGit, { throwIfNoEntry: false })
  } catch {
    return []
  }
  if (!st) return []
  const real = realOrNull(dotGit)
  if (real === null) return []
  if (!st.isFile()) return [real]
  const out = [real]
  const line = firstLine(real)
  if (!line?.startsWith('gitdir:')) return out
  const gitdir = realOrNull(resolve(dirname(dotGit), line.slice('gitdir:'.length).trim()))
  if (gitdir === null) return out
  out.push(gitdir)
  const common = firstLine(join(gitdir, 'commondir'))
  const commonReal = common ? realOrNull(resolve(gitdir, common)) : null
  if (commonReal !== null) out.push(commonReal)
  return out
}

/** The git directories of each root (the workspace, the allowed roots), as real paths. */
export function gitDirsOf(roots: readonly string[]): string[] {
  const out = new Set<string>()
  for (const root of roots) for (const dir of gitDirsAt(join(root, '.git'))) out.add(dir)
  return [...out]
}

/**
 * The refusal for a write to `real` (a confined, real path) when git writes are not allowed:
 * a path with a `.git` component inside a root (the workspace's repository or one nested in
 * it), or inside a git directory a root's `.git` file points to. Null when the write may go.
 */
export function gitWriteRefusal(input: string, real: string, roots: readonly string[]): string | null {
  const inDotGit = roots.some(
    (root) => isWithin(real, root) && relative(root, real).split(sep).includes('.git'),
  )
  if (!inDotGit && !gitDirsOf(roots).some((dir) => isWithin(real, dir))) return null
  return (
    `${input}: is inside a repository's .git, which tools may not change: hooks and config there ` +
    'run on the host the next time git runs. Refused; leave .git alone, or ask the user to allow ' +
    'git writes for this session if the change is really needed.'
  )
}
