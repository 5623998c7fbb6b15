// Which directories a run's snapshots capture: the session's workspace and the allowed roots
// of the `tools` settings, as the run's tools see them (RunToolScope). Each is captured in its
// own private git directory, so a root inside another is left to the outer one, and a root
// that would capture hearth's own home (where the snapshots live) or a whole home directory
// or file system is not captured at all (docs/checkpoints.md).
import { realpathSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { sep } from 'node:path'

function realDirectory(path: string): string | null {
  try {
    const real = realpathSync(path)
    return statSync(real).isDirectory() ? real : null
  } catch {
    return null
  }
}

/** `inner` is `outer` or under it. */
export function within(inner: string, outer: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : outer + sep)
}

/** The roots to capture, outermost first, none inside another. */
export function snapshotRoots(
  workspace: string,
  allowedRoots: readonly string[],
  hearthHome: string,
): string[] {
  const home = realDirectory(hearthHome) ?? hearthHome
  const userHome = realDirectory(homedir())
  const candidates = [workspace, ...allowedRoots]
    .map(realDirectory)
    .filter((r): r is string => r !== null && r !== '/' && r !== userHome && !within(home, r))
  const sorted = [...new Set(candidates)].sort((a, b) => a.length - b.length)
  const roots: string[] = []
  for (const r of sorted) if (!roots.some((outer) => within(r, outer))) roots.push(r)
  return roots
}
