// A workspace is an absolute directory on the daemon host.
import { statSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { HearthError } from '../schemas/problems.ts'

/** `path` normalised (`/a/b/..` is `/a`); 400 workspace_not_absolute unless it is absolute. */
export function absolutePath(path: string, what = 'Workspace'): string {
  if (!isAbsolute(path) || path.includes('\0'))
    throw new HearthError('workspace_not_absolute', `${what} ${JSON.stringify(path)} is not an absolute path`)
  return resolve(path)
}

/** An existing directory, normalised (400 workspace_not_absolute / _not_found / _not_directory). */
export function checkWorkspace(path: string): string {
  const normalized = absolutePath(path)
  let isDir: boolean
  try {
    isDir = statSync(normalized).isDirectory()
  } catch {
    throw new HearthError('workspace_not_found', `No directory ${normalized} on the daemon host`)
  }
  if (!isDir) throw new HearthError('workspace_not_directory', `${normalized} is not a directory`)
  return normalized
}
