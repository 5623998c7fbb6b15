// Where a daemon keeps its state: --home, else HEARTH_HOME, else ~/.hearth.
import { mkdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'

export function resolveHome(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return resolve(flag)
  if (env.HEARTH_HOME) return resolve(env.HEARTH_HOME)
  return join(homedir(), '.hearth')
}

/** Creates the home (mode 0700) and its fixed subfolders. */
export function ensureHome(home: string): void {
  mkdirSync(home, { recursive: true, mode: 0o700 })
  mkdirSync(join(home, 'logs'), { recursive: true, mode: 0o700 })
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
