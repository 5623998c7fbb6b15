// Temp workspaces and homes for the snapshot engine's tests, and what a test reads back: the
// files under a root (content, mode, link target), and the person's own git as they run it.
import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after } from 'node:test'
import { SnapshotEngine } from '../../src/snapshots/engine.ts'

const made: string[] = []
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true })
})

export function tempDir(prefix = 'hearth-snap-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  made.push(dir)
  return dir
}

export function newEngine(maxFileBytes = 1024 * 1024, home = tempDir('hearth-snap-home-')) {
  return { home, engine: new SnapshotEngine({ home, maxFileBytes }) }
}

export function put(root: string, path: string, content: string | Buffer, mode?: number): void {
  const file = join(root, path)
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, content)
  if (mode !== undefined) chmodSync(file, mode)
}

/** Every file under root (not `.git`): path → `content` | `link:target`, with `+x` for executables. */
export function filesOf(root: string, skip: readonly string[] = ['.git']): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (skip.includes(name) && prefix === '') continue
      const path = prefix + name
      const full = join(dir, name)
      const info = lstatSync(full)
      if (info.isSymbolicLink()) out[path] = `link:${readlinkSync(full)}`
      else if (info.isDirectory()) walk(full, `${path}/`)
      else out[path] = readFileSync(full, 'latin1') + (info.mode & 0o100 ? ' +x' : '')
    }
  }
  walk(root, '')
  return out
}

/** Directories under root (not `.git`). */
export function dirsOf(root: string): string[] {
  const out: string[] = []
  const walk = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name)
      if (name === '.git' || !lstatSync(full).isDirectory()) continue
      out.push(prefix + name)
      walk(full, `${prefix}${name}/`)
    }
  }
  walk(root, '')
  return out
}

/** The person's git in their repository, with an identity and nothing else of ours. */
export function userGit(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Person', '-c', 'user.email=p@example.com', ...args], {
    cwd: repo,
    encoding: 'latin1',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' },
  })
}
