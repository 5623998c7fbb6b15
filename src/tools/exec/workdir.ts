// Where a command starts: the workspace, or a directory inside it (or inside a root the user
// allowed) that the model names. The name is resolved with symlinks followed, so `..`, an
// absolute path elsewhere or a symlink that leads out is refused before anything runs.
import { realpathSync, statSync } from 'node:fs'
import { isAbsolute, relative, resolve, sep } from 'node:path'

export type WorkdirResult = { ok: true; dir: string } | { ok: false; message: string }

export function resolveWorkdir(
  workspace: string,
  allowedRoots: readonly string[],
  requested: string | undefined,
): WorkdirResult {
  if (requested === undefined || requested === '' || requested === '.') return { ok: true, dir: workspace }
  let dir: string
  try {
    dir = realpathSync(resolve(workspace, requested))
  } catch {
    return { ok: false, message: `cwd ${JSON.stringify(requested)} does not exist` }
  }
  if (!statSync(dir).isDirectory())
    return { ok: false, message: `cwd ${JSON.stringify(requested)} is not a directory` }
  const roots = [workspace, ...allowedRoots].map((r) => safeRealpath(r))
  if (!roots.some((root) => root !== null && isInside(root, dir)))
    return {
      ok: false,
      message: `cwd ${JSON.stringify(requested)} is outside the workspace (${workspace}); commands run only inside it`,
    }
  return { ok: true, dir }
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path)
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
}

function safeRealpath(path: string): string | null {
  try {
    return realpathSync(path)
  } catch {
    return null
  }
}
