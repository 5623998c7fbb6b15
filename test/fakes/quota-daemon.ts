// A daemon that records quota, for the clients that read it: a real HTTP server on
// 127.0.0.1 in front of a real test daemon. It answers GET /server itself, as the spec's
// "Quota read path" shapes it: `quota` with the latest reading per account and limit, and
// with include=quota_history the stored readings newest first in keyset pages (limit up to
// 200, default 50) under an opaque `next` bound to its query, filtered to one limit trail by
// quota_provider, quota_account and quota_limit (all three) and quota_since (only with
// them). Every other request is passed to the real daemon unchanged (streams included), so
// a client opens sessions as usual. `home` names this server (daemon.json, token).
import { mkdirSync, writeFileSync } from 'node:fs'
import { type IncomingMessage, request, type ServerResponse } from 'node:http'
import { join } from 'node:path'
import type { QuotaReading } from '../../src/schemas/server.ts'
import { type TestDaemon, tempHome } from '../helpers/daemon.ts'
import { LoopbackServer } from './loopback-server.ts'

const TRAIL = ['quota_provider', 'quota_account', 'quota_limit'] as const

export class FakeQuotaDaemon {
  readonly url: string
  readonly home: string
  /** The query of every GET /server, in order. */
  readonly serverQueries: URLSearchParams[] = []
  /** The latest readings (`quota`); null as a daemon that records none. */
  latest: QuotaReading[] | null
  /** Every stored reading, in the order stored (oldest first). */
  history: QuotaReading[]
  readonly #real: TestDaemon
  readonly #http: LoopbackServer

  private constructor(
    http: LoopbackServer,
    real: TestDaemon,
    latest: QuotaReading[] | null,
    history: QuotaReading[],
  ) {
    this.#http = http
    this.#real = real
    this.url = http.url
    this.latest = latest
    this.history = history
    this.home = tempHome('hearth-quota-home-')
    mkdirSync(this.home, { recursive: true })
    writeFileSync(join(this.home, 'daemon.json'), JSON.stringify({ url: this.url, pid: real.proc.pid }))
    writeFileSync(join(this.home, 'token'), real.token, { mode: 0o600 })
  }

  static async start(
    real: TestDaemon,
    latest: QuotaReading[] | null,
    history: QuotaReading[] = [],
  ): Promise<FakeQuotaDaemon> {
    let fake: FakeQuotaDaemon | null = null
    const http = await LoopbackServer.listen((req, res) => fake!.#handle(req, res))
    fake = new FakeQuotaDaemon(http, real, latest, history)
    return fake
  }

  /** The GET /server queries that asked for history of `limit`. */
  historyQueries(limit?: string): URLSearchParams[] {
    return this.serverQueries.filter(
      (q) => q.get('include') === 'quota_history' && (limit === undefined || q.get('quota_limit') === limit),
    )
  }

  close(): Promise<void> {
    return this.#http.close()
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url)
    if (req.method === 'GET' && url.pathname === '/server') return this.#server(req, url, res)
    await this.#pass(req, res)
  }

  async #server(req: IncomingMessage, url: URL, res: ServerResponse): Promise<void> {
    this.serverQueries.push(url.searchParams)
    if (req.headers.authorization !== `Bearer ${this.#real.token}`)
      return problem(res, 401, 'unauthorized', 'A valid bearer token is required')
    const base = (await this.#real.request({ path: '/server' })).json()
    base.quota = this.latest
    const q = url.searchParams
    if (q.get('include') === 'quota_history') {
      const page = this.#page(q)
      if ('error' in page) return problem(res, 400, page.code, page.error)
      base.quota_history = page
    }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify(base))
  }

  #page(
    q: URLSearchParams,
  ): { items: QuotaReading[]; next: string | null } | { code: string; error: string } {
    const named = TRAIL.filter((k) => q.has(k))
    if (named.length > 0 && named.length < TRAIL.length)
      return { code: 'invalid_parameter', error: `${TRAIL.join(', ')} go together` }
    if (q.has('quota_since') && named.length === 0)
      return { code: 'invalid_parameter', error: `quota_since needs ${TRAIL.join(', ')}` }
    const limit = Number(q.get('limit') ?? 50)
    if (!Number.isInteger(limit) || limit < 1 || limit > 200)
      return { code: 'invalid_parameter', error: 'limit is 1 to 200' }
    const since = q.get('quota_since')
    const sinceMs = since === null ? null : Date.parse(since)
    if (sinceMs !== null && Number.isNaN(sinceMs)) return { code: 'invalid_parameter', error: 'quota_since' }
    // The key the continuation is bound to: every parameter but limit and next.
    const bound = JSON.stringify([...TRAIL, 'quota_since'].map((k) => q.get(k)))
    // Keyset: row ids are the positions in `history`; the cursor holds the last id served.
    let before = this.history.length
    const next = q.get('next')
    if (next !== null) {
      let cursor: { bound?: string; before?: number }
      try {
        cursor = JSON.parse(Buffer.from(next, 'base64url').toString())
      } catch {
        cursor = {}
      }
      if (cursor.bound !== bound || typeof cursor.before !== 'number')
        return { code: 'invalid_continuation', error: 'This continuation was minted for another query' }
      before = cursor.before
    }
    const items: QuotaReading[] = []
    let id = before - 1
    for (; id >= 0 && items.length < limit; id--) {
      const r = this.history[id]
      if (
        named.length > 0 &&
        (r.provider !== q.get('quota_provider') || r.account !== q.get('quota_account'))
      )
        continue
      if (named.length > 0 && r.limit_id !== q.get('quota_limit')) continue
      if (sinceMs !== null && Date.parse(r.observed_at) < sinceMs) continue
      items.push(r)
    }
    // More rows may follow when the page filled before the oldest row was passed.
    const more = items.length === limit && this.#anyBefore(id + 1, q, named.length > 0, sinceMs)
    return {
      items,
      next: more ? Buffer.from(JSON.stringify({ bound, before: id + 1 })).toString('base64url') : null,
    }
  }

  #anyBefore(before: number, q: URLSearchParams, filtered: boolean, sinceMs: number | null): boolean {
    for (let id = before - 1; id >= 0; id--) {
      const r = this.history[id]
      if (filtered && (r.provider !== q.get('quota_provider') || r.account !== q.get('quota_account')))
        continue
      if (filtered && r.limit_id !== q.get('quota_limit')) continue
      if (sinceMs !== null && Date.parse(r.observed_at) < sinceMs) continue
      return true
    }
    return false
  }

  /** Passes a request to the real daemon as it came (its Host rewritten) and streams the answer back. */
  #pass(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = new URL(this.#real.url)
    return new Promise((resolve) => {
      const up = request(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: target.host },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
          answer.on('end', resolve)
          answer.on('error', () => res.destroy())
        },
      )
      up.on('error', () => {
        res.destroy()
        resolve()
      })
      res.on('close', () => up.destroy())
      req.pipe(up)
    })
  }
}

function problem(res: ServerResponse, status: number, code: string, detail: string): void {
  res.writeHead(status, { 'content-type': 'application/problem+json' })
  res.end(JSON.stringify({ type: 'about:blank', title: code, status, detail, code }))
}

/** A reading of `limit` as the poller would store it, observed at `observedAt` (ms). */
export function reading(fields: Partial<QuotaReading> & { observed: number }): QuotaReading {
  const { observed, ...rest } = fields
  return {
    account: 'a@example.test',
    provider: 'codex',
    plan: 'plus',
    limit_id: 'primary',
    limit_label: 'session',
    used_percent: 10,
    window_label: '5h',
    window_seconds: 18_000,
    reset_at_ms: observed + 3_600_000,
    scope: null,
    status: null,
    error: null,
    observed_at: new Date(observed).toISOString(),
    source: 'poll',
    ...rest,
  }
}
