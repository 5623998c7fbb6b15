// A kernel bundle in a temp folder for HEARTH_KERNEL_BUNDLE, which a test replaces as an update
// would: a new file renamed over the old one. Its neighbour kernel-mcp.mjs is the built one.
import { copyFileSync, mkdtempSync, renameSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from '../helpers/daemon.ts'

export const DIST = join(ROOT, 'dist')

export interface TempBundle {
  /** The bundle's path, for HEARTH_KERNEL_BUNDLE. */
  path: string
  /** Puts `text` (else the built kernel) in place of the bundle. */
  replace(text?: string): void
}

export function tempBundle(): TempBundle {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-bundle-'))
  const path = join(dir, 'kernel.mjs')
  symlinkSync(join(DIST, 'kernel-mcp.mjs'), join(dir, 'kernel-mcp.mjs'))
  return {
    path,
    replace(text?: string) {
      const next = `${path}.next`
      if (text === undefined) copyFileSync(join(DIST, 'kernel.mjs'), next)
      else writeFileSync(next, text)
      renameSync(next, path)
    },
  }
}
