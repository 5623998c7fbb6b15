// Git as a child process (never a shell) against a private git directory, with an environment
// that owns nothing of the user's: no inherited GIT_* variable, no system or global config, a
// HOME that is an empty directory (so no user hooks, excludes or templates), and the options
// that must hold whatever a config says given on the command line.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'

/**
 * Options every call carries: hooks off (a path where none can exist: an empty hooksPath would
 * be relative to the work tree), no fsmonitor or line-ending rewriting, links as links.
 */
const FIXED_OPTIONS = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.autocrlf=false',
  'core.eol=lf',
  'core.safecrlf=false',
  'core.symlinks=true',
  'core.filemode=true',
  'core.ignorecase=false',
  'core.quotePath=false',
  'core.untrackedCache=true',
  'core.preloadIndex=true',
  'index.threads=true',
  'gc.auto=0',
  'gc.packRefs=false',
].flatMap((o) => ['-c', o])

/** Environment variables passed through from the daemon's own (nothing of git's). */
const PASSED = ['PATH', 'SYSTEMROOT', 'TMPDIR', 'TZ']

export class GitError extends Error {
  readonly code: number | null
  readonly stderr: string
  constructor(args: readonly string[], code: number | null, stderr: string) {
    super(
      `git ${args.find((a) => !a.startsWith('-') && !a.includes('=')) ?? ''} failed (${code}): ${stderr.trim().slice(-400)}`,
    )
    this.name = 'GitError'
    this.code = code
    this.stderr = stderr
  }
}

export interface GitResult {
  stdout: Buffer
  stderr: string
  code: number
}

export interface GitCall {
  /** Written to git's stdin, then closed. */
  input?: Buffer | string
  signal?: AbortSignal
  /** Exit codes that are answers, not failures (e.g. 1 for "differs"). */
  okCodes?: readonly number[]
  /** Stop reading stdout past this many bytes (the process is killed, the result marked cut). */
  maxBytes?: number
}

/** One private git directory and the work tree it captures. */
export class Git {
  readonly bin: string
  readonly gitDir: string
  readonly workTree: string | null
  readonly #env: NodeJS.ProcessEnv

  constructor(bin: string, gitDir: string, workTree: string | null, emptyHome: string) {
    this.bin = bin
    this.gitDir = gitDir
    this.workTree = workTree
    this.#env = cleanEnv(gitDir, emptyHome)
  }

  /** Starts `git <args>` with pipes for stdin, stdout and stderr; the caller reads it. */
  spawn(args: readonly string[], signal?: AbortSignal): ChildProcessWithoutNullStreams {
    return spawn(this.bin, this.#argv(args), {
      env: this.#env,
      cwd: this.workTree ?? dirname(this.gitDir),
      stdio: ['pipe', 'pipe', 'pipe'],
      shell: false,
      signal,
    })
  }

  /** Runs `git <args>`; resolves with its output, rejects with GitError on any other exit code. */
  run(args: readonly string[], call: GitCall = {}): Promise<GitResult & { cut: boolean }> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.bin, this.#argv(args), {
        env: this.#env,
        cwd: this.workTree ?? dirname(this.gitDir),
        stdio: [call.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        shell: false,
        signal: call.signal,
      })
      const out: Buffer[] = []
      let outBytes = 0
      let cut = false
      let err = ''
      child.stdout?.on('data', (chunk: Buffer) => {
        if (cut) return
        out.push(chunk)
        outBytes += chunk.length
        if (call.maxBytes !== undefined && outBytes > call.maxBytes) {
          cut = true
          child.kill('SIGKILL')
        }
      })
      child.stderr?.on('data', (chunk: Buffer) => {
        if (err.length < 64 * 1024) err += chunk.toString('utf8')
      })
      child.on('error', reject)
      child.on('close', (code) => {
        const stdout = Buffer.concat(out)
        if (cut) return resolve({ stdout, stderr: err, code: code ?? -1, cut })
        if (code === 0 || (code !== null && call.okCodes?.includes(code))) {
          return resolve({ stdout, stderr: err, code, cut })
        }
        reject(new GitError(args, code, err))
      })
      if (call.input !== undefined && child.stdin) {
        child.stdin.on('error', () => {}) // git may exit before reading everything; its exit code says why
        child.stdin.end(call.input)
      }
    })
  }

  #argv(args: readonly string[]): string[] {
    const argv = [...FIXED_OPTIONS, `--git-dir=${this.gitDir}`]
    if (this.workTree) argv.push(`--work-tree=${this.workTree}`)
    return [...argv, ...args]
  }
}

/** Only what git needs, and our own settings: nothing of the user's git. */
export function cleanEnv(gitDir: string, emptyHome: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const name of PASSED) if (process.env[name] !== undefined) env[name] = process.env[name]
  env.PATH ??= '/usr/local/bin:/usr/bin:/bin'
  Object.assign(env, {
    HOME: emptyHome,
    XDG_CONFIG_HOME: join(emptyHome, '.config'),
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_INDEX_FILE: join(gitDir, 'index'),
    GIT_TERMINAL_PROMPT: '0',
    GIT_LITERAL_PATHSPECS: '1',
    GIT_AUTHOR_NAME: 'hearth',
    GIT_AUTHOR_EMAIL: 'hearth@localhost',
    GIT_COMMITTER_NAME: 'hearth',
    GIT_COMMITTER_EMAIL: 'hearth@localhost',
  })
  return env
}

/** An empty directory to stand for HOME: created once, kept empty. */
export function emptyHomeIn(dir: string): string {
  const home = join(dir, '.empty-home')
  mkdirSync(home, { recursive: true })
  return home
}

/**
 * Serialises work per key (a root's git directory): two sessions on one workspace share its
 * private index, and git's index.lock would otherwise make one of them fail.
 */
export class KeyedQueue {
  readonly #tails = new Map<string, Promise<unknown>>()
  readonly #busy = new Set<string>()

  run<T>(key: string, job: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve()
    const next = previous.then(
      () => this.#hold(key, job),
      () => this.#hold(key, job),
    )
    const tail = next.catch(() => {})
    this.#tails.set(key, tail)
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key)
    })
    return next
  }

  /** Whether a job of ours is running on this key (so a lock file there is not stale). */
  busy(key: string): boolean {
    return this.#busy.has(key)
  }

  async #hold<T>(key: string, job: () => Promise<T>): Promise<T> {
    this.#busy.add(key)
    try {
      return await job()
    } finally {
      this.#busy.delete(key)
    }
  }
}

/** NUL-separated git output as strings (the last empty field dropped). */
export function nulFields(out: Buffer): string[] {
  const fields = out.toString('utf8').split('\0')
  if (fields.at(-1) === '') fields.pop()
  return fields
}
