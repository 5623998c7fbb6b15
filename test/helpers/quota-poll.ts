// What the quota poller's daemon tests share: the readings in a home's state.db (read while
// the daemon runs), a home written with accounts, and a token endpoint that holds refreshes.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { until } from './daemon.ts'

export const HOUR = 3_600_000

export interface Row {
  account: string
  provider: string
  limit_id: string
  used_percent: number | null
  reset_at_ms: number | null
  error: string | null
}

export function readings(home: string): Row[] {
  const db = new Database(join(home, 'state.db'), { readonly: true, fileMustExist: true })
  try {
    return db.prepare('SELECT * FROM quota_readings ORDER BY id').all() as Row[]
  } finally {
    db.close()
  }
}

export const waitReadings = (home: string, what: string, check: (rows: Row[]) => boolean, ms = 30_000) =>
  until(
    what,
    () => {
      try {
        const rows = readings(home)
        return check(rows) ? rows : undefined
      } catch {
        return undefined // the table is not there yet
      }
    },
    ms,
    20,
  )

/** A signed-in ChatGPT account as creds.json stores it, its token valid for an hour. */
export function chatgptAccount(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    access: 'chatgpt-access-token',
    refresh: 'chatgpt-refresh-token',
    expires: Date.now() + HOUR,
    account_id: 'ws-1',
    user_id: 'user-1',
    email: 'ann@example.test',
    ...fields,
  }
}

export function writeHome(home: string, files: { config?: object; creds: object; extensions?: object }) {
  mkdirSync(home, { recursive: true })
  writeFileSync(join(home, 'config.json'), JSON.stringify(files.config ?? {}))
  writeFileSync(join(home, 'creds.json'), JSON.stringify(files.creds), { mode: 0o600 })
  if (files.extensions) writeFileSync(join(home, 'extensions.json'), JSON.stringify(files.extensions))
}

export const creds = (home: string) => JSON.parse(readFileSync(join(home, 'creds.json'), 'utf8'))

/** A token endpoint in front of another that holds refreshes until released. */
export class HeldTokenEndpoint {
  readonly held: (() => void)[] = []
  #server!: Server
  url = ''
  #holding = true

  static async start(target: string): Promise<HeldTokenEndpoint> {
    const e = new HeldTokenEndpoint()
    e.#server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c) => chunks.push(c))
      req.on('end', () => {
        const forward = () => {
          const out = request(target, { method: 'POST', headers: req.headers }, (up) => {
            res.writeHead(up.statusCode ?? 502, up.headers)
            up.pipe(res)
          })
          out.end(Buffer.concat(chunks))
        }
        if (e.#holding) e.held.push(forward)
        else forward()
      })
    })
    await new Promise<void>((r) => e.#server.listen(0, '127.0.0.1', () => r()))
    e.url = `http://127.0.0.1:${(e.#server.address() as AddressInfo).port}/v1/oauth/token`
    return e
  }

  release(): void {
    this.#holding = false
    for (const f of this.held.splice(0)) f()
  }

  close(): Promise<void> {
    this.#server.closeAllConnections()
    return new Promise((r) => this.#server.close(() => r()))
  }
}
