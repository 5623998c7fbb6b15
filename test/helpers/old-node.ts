// A Node older than 24 on this machine (the system's, say), for the launcher's tests.
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'

/** A Node older than 24 on this machine, if there is one. */
export function oldNode(): string | undefined {
  const candidates = new Set(['/usr/bin/node', '/usr/local/bin/node', '/bin/node'])
  try {
    for (const p of execFileSync('which', ['-a', 'node'], { env: { PATH: '/usr/local/bin:/usr/bin:/bin' } })
      .toString()
      .split('\n'))
      if (p) candidates.add(p)
  } catch {
    // no which
  }
  for (const p of candidates) {
    if (!existsSync(p)) continue
    try {
      const v = execFileSync(p, ['--version']).toString().trim()
      if (Number(/^v(\d+)/.exec(v)?.[1]) < 24) return p
    } catch {
      // not runnable
    }
  }
  return undefined
}
