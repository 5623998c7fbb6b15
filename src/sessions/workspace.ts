// A workspace is an absolute directory on the daemon host.
import { statSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { HearthError } from '../schemas/problems.ts'

export function checkWorkspace(path: string): string {
  if (!isAbsolute(path) || path.includes('\0')) {
    throw new HearthError(
      'workspace_not_absolute',
      `Workspace ${JSON.stringify(path)} is not an absolute path`,
    )
  }
  const normalized = resolve(path)
  let isDir: boolean
  try {
    isDir = statSync(normalized).isDirectory()
  } catch {
    throw new HearthError('workspace_not_found', `No directory ${normalized} on the daemon host`)
  }
  if (!isDir) throw new HearthError('workspace_not_directory', `${normalized} is not a directory`)
  return normalized
}
