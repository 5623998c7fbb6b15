// Where a daemon keeps its state (--home, else HEARTH_HOME, else ~/.hearth) and the files in it.
// A leaf: the daemon makes the home, the clients find the daemon through it, and the kernel,
// the sandbox and `hearth models refresh` read paths in it.
import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'

export function resolveHome(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return resolve(flag)
  if (env.HEARTH_HOME) return resolve(env.HEARTH_HOME)
  return join(homedir(), '.hearth')
}

/** Creates the home (mode 0700) and its fixed subfolders; an existing home is made private. */
export function ensureHome(home: string): void {
  makeDirs(resolve(home))
  makePrivate(resolve(home))
  makeDirs(join(resolve(home), 'logs'))
}

/**
 * The home holds the token and the credentials: nobody but its owner may list or enter it.
 * A home made by hand (or by an older tool) with 0755 is tightened to 0700. A home owned by
 * another user is refused rather than changed: that user could read whatever is written.
 */
function makePrivate(home: string): void {
  const st = statSync(home)
  if (!st.isDirectory()) throw new Error('it is not a directory')
  const uid = process.getuid?.()
  if (uid !== undefined && st.uid !== uid)
    throw new Error(`it is owned by uid ${st.uid}, not by this user (uid ${uid})`)
  if ((st.mode & 0o777) !== 0o700) chmodSync(home, 0o700)
}

/**
 * mkdir -p, one level at a time: a recursive mkdirSync under a pseudo file system such as
 * /proc can loop forever instead of failing, so each missing level is made on its own and
 * the first refusal ends the walk with its error.
 */
function makeDirs(dir: string): void {
  const missing: string[] = []
  for (let d = dir; !existsSync(d); d = dirname(d)) {
    missing.unshift(d)
    if (dirname(d) === d) break
  }
  for (const d of missing) mkdirSync(d, { mode: 0o700 })
}

export const homeFiles = (home: string) => ({
  token: join(home, 'token'),
  lock: join(home, 'daemon.lock'),
  runtime: join(home, 'daemon.json'),
  db: join(home, 'state.db'),
  config: join(home, 'config.json'),
  creds: join(home, 'creds.json'),
  extensions: join(home, 'extensions.json'),
  backups: join(home, 'backups'),
  logs: join(home, 'logs'),
})
