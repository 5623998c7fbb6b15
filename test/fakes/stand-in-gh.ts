// A stand-in for the GitHub CLI (`gh`), named by HEARTH_COPILOT_GH: a real executable that
// records its arguments and, signed in, prints its token on stdout as `gh auth token` does;
// signed out, it prints what a test gives it on stdout and stderr and exits 1.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export class StandInGh {
  readonly dir: string
  /** The executable to name in HEARTH_COPILOT_GH. */
  readonly path: string

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'stand-in-gh-'))
    this.path = join(this.dir, 'gh')
    const d = this.dir
    writeFileSync(
      this.path,
      [
        '#!/bin/sh',
        `printf '%s\\n' "$*" >> '${d}/calls'`,
        `if [ -f '${d}/token' ]; then cat '${d}/token'; exit 0; fi`,
        `cat '${d}/stdout' 2>/dev/null`,
        `cat '${d}/stderr' >&2 2>/dev/null`,
        'exit 1',
        '',
      ].join('\n'),
    )
    chmodSync(this.path, 0o755)
  }

  /** `gh auth token` prints this token. */
  signIn(token: string): this {
    writeFileSync(join(this.dir, 'token'), `${token}\n`)
    return this
  }

  /** `gh auth token` fails (exit 1), printing these. */
  signOut(stdout = '', stderr = 'no oauth token found for github.com'): this {
    rmSync(join(this.dir, 'token'), { force: true })
    writeFileSync(join(this.dir, 'stdout'), stdout)
    writeFileSync(join(this.dir, 'stderr'), stderr)
    return this
  }

  /** The arguments of each run, joined by spaces. */
  calls(): string[] {
    const file = join(this.dir, 'calls')
    return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []
  }

  close(): void {
    rmSync(this.dir, { recursive: true, force: true })
  }
}
