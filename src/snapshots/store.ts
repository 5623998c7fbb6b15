// The snapshot store: HOME/snapshots/<root key>/, one bare git directory per root (its private
// index inside), commits under refs/hearth/<snapshot id>. Commit objects and refs are written
// here rather than by two more git processes: a take with nothing changed pays for one git
// call, not three.
import { createHash } from 'node:crypto'
import { lstat, mkdir, readdir, readFile, realpath, rename, rm, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { deflateSync } from 'node:zlib'
import { emptyHomeIn, Git, KeyedQueue } from './git.ts'

/** A snapshot id is used in a ref name and a file name: letters, digits, `-`, `_`, `.`. */
const ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/

export function checkId(id: string): void {
  if (!ID.test(id) || id.endsWith('.lock') || id.includes('..')) throw new Error(`invalid snapshot id: ${id}`)
}

/** 16 hex of sha256 of the root's real path. */
export function rootKey(realRoot: string): string {
  return createHash('sha256').update(realRoot).digest('hex').slice(0, 16)
}

export interface RootRepo {
  /** The root as given (absolute). */
  root: string
  /** Its real path: what the key and every confinement check use. */
  real: string
  key: string
  git: Git
}

export class SnapshotStore {
  readonly dir: string
  readonly queue = new KeyedQueue()
  readonly #bin: string
  readonly #ready = new Map<string, Promise<void>>()
  #emptyHome: string | null = null

  constructor(home: string, bin: string) {
    this.dir = join(home, 'snapshots')
    this.#bin = bin
  }

  /** The repository of a root, created on first use. */
  async repo(root: string): Promise<RootRepo> {
    const real = await realpath(root)
    const key = rootKey(real)
    const git = this.gitFor(key, root)
    let ready = this.#ready.get(key)
    if (!ready) {
      ready = this.#init(git)
      this.#ready.set(key, ready)
      ready.catch(() => this.#ready.delete(key))
    }
    await ready
    return { root, real, key, git }
  }

  /** A git runner on a key's directory; `root` as its work tree (null: none). */
  gitFor(key: string, root: string | null): Git {
    this.#emptyHome ??= emptyHomeIn(this.dir)
    return new Git(this.#bin, join(this.dir, key), root, this.#emptyHome)
  }

  async #init(git: Git): Promise<void> {
    try {
      await lstat(join(git.gitDir, 'HEAD'))
      return
    } catch {}
    await mkdir(this.dir, { recursive: true })
    await new Git(git.bin, git.gitDir, null, this.#emptyHome as string).run([
      'init',
      '--bare',
      '--quiet',
      '--template=',
      git.gitDir,
    ])
    await mkdir(join(git.gitDir, 'info'), { recursive: true })
    await mkdir(join(git.gitDir, 'refs', 'hearth'), { recursive: true })
  }

  /** Writes a commit object for `tree` and points refs/hearth/<id> at it; returns its id. */
  async commit(git: Git, tree: string, id: string, root: string): Promise<string> {
    const at = Math.floor(Date.now() / 1000)
    const who = `hearth <hearth@localhost> ${at} +0000`
    const body = `tree ${tree}\nauthor ${who}\ncommitter ${who}\n\nsnapshot ${id} of ${root}\n`
    const sha = await writeObject(git.gitDir, 'commit', Buffer.from(body, 'utf8'))
    await writeAtomic(join(git.gitDir, 'refs', 'hearth', id), `${sha}\n`)
    // HEAD (detached) at the last snapshot: `git status` then compares the index with a tree it
    // equals, which its cache-tree makes nearly free
    await writeAtomic(join(git.gitDir, 'HEAD'), `${sha}\n`)
    return sha
  }

  /** The keys of every root that has a store. */
  async keys(): Promise<string[]> {
    try {
      const names = await readdir(this.dir)
      return names.filter((n) => /^[0-9a-f]{16}$/.test(n))
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw e
    }
  }

  /** Removes refs/hearth/<id> for these ids wherever they are. */
  async drop(ids: readonly string[]): Promise<void> {
    for (const id of ids) checkId(id)
    const wanted = new Set(ids)
    for (const key of await this.keys()) {
      await this.queue.run(key, async () => {
        const git = this.gitFor(key, null)
        const { stdout } = await git.run(['for-each-ref', '--format=%(refname)', 'refs/hearth/'])
        const refs = stdout
          .toString('utf8')
          .split('\n')
          .filter((r) => wanted.has(r.slice('refs/hearth/'.length)))
        if (refs.length === 0) return
        await git.run(['update-ref', '--no-deref', '--stdin', '-z'], {
          input: refs.map((r) => `delete ${r}\0\0`).join(''),
        })
      })
    }
  }

  /** Removes the objects no snapshot refers to any more, one root at a time. */
  async prune(): Promise<void> {
    for (const key of await this.keys()) {
      // a gc asked for by name never detaches (only `gc --auto` does): it is done when this resolves
      await this.queue.run(key, () => this.gitFor(key, null).run(['gc', '--quiet', '--prune=now']))
    }
  }

  /** The bytes of HOME/snapshots. */
  async bytes(): Promise<number> {
    return sizeOf(this.dir)
  }
}

/** Writes a loose object (zlib-deflated `<type> <size>\0<content>`) unless it exists. */
async function writeObject(gitDir: string, type: string, content: Buffer): Promise<string> {
  const raw = Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content])
  const sha = createHash('sha1').update(raw).digest('hex')
  const dir = join(gitDir, 'objects', sha.slice(0, 2))
  const file = join(dir, sha.slice(2))
  try {
    await lstat(file)
    return sha
  } catch {}
  await mkdir(dir, { recursive: true })
  await writeAtomic(file, deflateSync(raw))
  return sha
}

async function writeAtomic(file: string, data: string | Buffer): Promise<void> {
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`
  await writeFile(temp, data)
  try {
    await rename(temp, file)
  } catch (e) {
    await unlink(temp).catch(() => {})
    throw e
  }
}

async function sizeOf(path: string): Promise<number> {
  let stat: Awaited<ReturnType<typeof lstat>>
  try {
    stat = await lstat(path)
  } catch {
    return 0 // removed while counting
  }
  if (!stat.isDirectory()) return stat.size
  let total = 0
  let names: string[] = []
  try {
    names = await readdir(path)
  } catch {
    return 0
  }
  for (const name of names) total += await sizeOf(join(path, name))
  return total
}

/** The root's own `info/exclude` (its `.git` may be a directory, or a file naming one). */
export async function rootExcludeFile(real: string): Promise<string | null> {
  const dotGit = join(real, '.git')
  try {
    const stat = await lstat(dotGit)
    if (stat.isDirectory()) return join(dotGit, 'info', 'exclude')
    if (!stat.isFile()) return null
    const pointer = /^gitdir: (.+)$/m.exec(await readFile(dotGit, 'utf8'))?.[1]?.trim()
    if (!pointer) return null
    const gitDir = pointer.startsWith('/') ? pointer : join(real, pointer)
    const common = await readFile(join(gitDir, 'commondir'), 'utf8').catch(() => null)
    const base = common
      ? common.trim().startsWith('/')
        ? common.trim()
        : join(gitDir, common.trim())
      : gitDir
    return join(base, 'info', 'exclude')
  } catch {
    return null
  }
}

/** Copies the root's exclude rules into the private directory (or empties them). */
export async function syncExclude(repo: RootRepo): Promise<void> {
  const source = await rootExcludeFile(repo.real)
  const rules = source ? await readFile(source).catch(() => Buffer.alloc(0)) : Buffer.alloc(0)
  const target = join(repo.git.gitDir, 'info', 'exclude')
  const current = await readFile(target).catch(() => null)
  if (current?.equals(rules)) return
  await writeAtomic(target, rules)
}

/**
 * A lock file left by a git that was killed. Called inside the root's queue, where no call of
 * ours holds it, so one found there is stale.
 */
export async function clearStaleLock(gitDir: string): Promise<void> {
  await rm(join(gitDir, 'index.lock'), { force: true })
}
