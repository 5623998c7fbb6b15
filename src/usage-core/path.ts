// Where the built usage core is, for the daemon's quota driver: dist/usage-core.mjs, beside
// the bundle this file is built into (the daemon's). Run from source (tests that import
// src/), the path is the checkout's dist/ all the same: the core is always run built.
// Kept apart from the core's entry so that importing it loads nothing of the core.
import { fileURLToPath } from 'node:url'

/** The absolute path of dist/usage-core.mjs (run as `process.execPath <path> usage …`). */
export function builtInCorePath(): string {
  const here = import.meta.url
  return fileURLToPath(new URL(here.endsWith('.ts') ? '../../dist/usage-core.mjs' : './usage-core.mjs', here))
}
