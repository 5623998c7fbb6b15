// Paths compared as paths, not as strings: /a/bc is not under /a/b.
import { isAbsolute, relative, sep } from 'node:path'

/** Whether `child` is `parent` or lies under it (both absolute, normalized). */
export function isWithin(child: string, parent: string): boolean {
  if (child === parent) return true
  const rel = relative(parent, child)
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel)
}
