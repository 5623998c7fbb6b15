// A browser's EventSource on the session stream, through a connection drop. Headless
// Chromium loads a page this test serves; the page's EventSource reads the session stream
// and reports every event back. EventSource cannot send Authorization, so the same origin
// proxies /sessions/... to the daemon, adding the bearer token and the daemon's Host. The
// test cuts the proxied connection; EventSource reconnects by itself with Last-Event-ID,
// and every event id must arrive exactly once, in order, across the drop.
import assert from 'node:assert/strict'
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import {
  type ClientRequest,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { startDaemon, type TestDaemon } from '../helpers/daemon.ts'
import { createSession, produceVisits } from './sse-client.ts'

function findChromium(): string | undefined {
  if (process.env.HEARTH_CHROMIUM) return process.env.HEARTH_CHROMIUM
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium'
  try {
    return execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim() || undefined
  } catch {
    return undefined
  }
}

interface Report {
  i: number
  type: string
  id: string
}

function page(sessionId: string): string {
  return `<!doctype html>
<meta charset="utf-8">
<title>hearth session stream</title>
<script>
let i = 0
const report = (type, id) =>
  fetch('/report', { method: 'POST', body: JSON.stringify({ i: i++, type, id }) })
const es = new EventSource('/sessions/${sessionId}?tail=0')
for (const type of ['snapshot', 'session.visited', 'reset', 'overflow', 'session.deleted']) {
  es.addEventListener(type, (e) => report(type, e.lastEventId))
}
es.onopen = () => report('open', '')
es.onerror = () => report('error', String(es.readyState))
</script>`
}

/** The page, the report sink, and a same-origin proxy of /sessions/... to the daemon. */
class TestSite {
  readonly reports: Report[] = []
  /** Every proxied stream request: its Last-Event-ID and the daemon's Content-Encoding. */
  readonly proxied: { lastEventId: string | undefined; encoding: string | undefined }[] = []
  #current: { browser: IncomingMessage; upstream: ClientRequest } | undefined
  #waiters: (() => void)[] = []
  readonly server = createServer((req, res) => this.#handle(req, res))

  readonly d: TestDaemon
  readonly sessionId: string

  constructor(d: TestDaemon, sessionId: string) {
    this.d = d
    this.sessionId = sessionId
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve))
    return (this.server.address() as AddressInfo).port
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    if (req.method === 'GET' && req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
      res.end(page(this.sessionId))
      return
    }
    if (req.method === 'POST' && req.url === '/report') {
      let body = ''
      req.setEncoding('utf8')
      req.on('data', (c) => {
        body += c
      })
      req.on('end', () => {
        this.reports.push(JSON.parse(body))
        res.end()
        for (const w of this.#waiters.splice(0)) w()
      })
      return
    }
    if (req.method === 'GET' && req.url?.startsWith('/sessions/')) {
      this.#proxy(req, res)
      return
    }
    res.writeHead(404).end()
  }

  #proxy(browser: IncomingMessage, res: ServerResponse): void {
    const h = browser.headers
    const lastEventId = h['last-event-id'] as string | undefined
    const headers: Record<string, string> = {
      host: new URL(this.d.url).host,
      authorization: `Bearer ${this.d.token}`,
    }
    for (const name of ['accept', 'accept-encoding', 'last-event-id', 'cache-control']) {
      if (typeof h[name] === 'string') headers[name] = h[name]
    }
    const upstream = httpRequest({
      host: this.d.hostname,
      port: this.d.port,
      path: browser.url,
      headers,
      setHost: false,
      agent: false,
    })
    this.#current = { browser, upstream }
    upstream.on('response', (up) => {
      this.proxied.push({ lastEventId, encoding: up.headers['content-encoding'] as string | undefined })
      const out: Record<string, string> = {}
      for (const name of ['content-type', 'content-encoding', 'cache-control', 'vary']) {
        if (typeof up.headers[name] === 'string') out[name] = up.headers[name]
      }
      res.writeHead(up.statusCode ?? 502, out)
      res.flushHeaders()
      up.on('data', (chunk) => res.write(chunk))
      up.on('end', () => res.end())
      up.on('error', () => res.destroy())
    })
    upstream.on('error', () => res.destroy())
    browser.on('close', () => upstream.destroy())
    upstream.end()
  }

  /** Cuts the proxied stream on both sides, as a network failure would. */
  drop(): void {
    assert.ok(this.#current, 'no proxied stream to drop')
    this.#current.browser.socket.destroy()
    this.#current.upstream.destroy()
    this.#current = undefined
  }

  async waitFor(what: string, ok: (reports: Report[]) => boolean, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (!ok(this.reports)) {
      const left = deadline - Date.now()
      if (left <= 0)
        throw new Error(`timed out waiting for ${what}; reports: ${JSON.stringify(this.ordered())}`)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left)
        this.#waiters.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
  }

  /** Reports in the order the page made them (they may reach the server out of order). */
  ordered(): Report[] {
    return [...this.reports].sort((a, b) => a.i - b.i)
  }

  /**
   * The page reported `id`, and every report it made before that one has arrived too (each
   * report is its own fetch, so a later one can overtake an earlier one).
   */
  hasId(id: string): boolean {
    const at = this.reports.find((r) => r.id === id)?.i
    if (at === undefined) return false
    const seen = new Set(this.reports.map((r) => r.i))
    for (let k = 0; k < at; k++) if (!seen.has(k)) return false
    return true
  }
}

function launch(chromium: string, url: string, profile: string): ChildProcess {
  const args = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-dev-shm-usage',
    '--disable-quic',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-extensions',
    '--disable-breakpad',
    '--disable-crash-reporter',
    `--user-data-dir=${profile}`,
    url,
  ]
  // Its own process group, so the browser and its helpers end together.
  return spawn(chromium, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true })
}

async function stopBrowser(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null || p.pid === undefined) return
  const closed = new Promise((resolve) => p.once('close', resolve))
  try {
    process.kill(-p.pid, 'SIGTERM')
  } catch {
    return
  }
  const patience = new AbortController()
  const done = await Promise.race([
    closed.then(() => true),
    sleep(3_000, false, { signal: patience.signal }).catch(() => false),
  ])
  patience.abort()
  if (!done) {
    try {
      process.kill(-p.pid, 'SIGKILL')
    } catch {
      // already gone
    }
    await closed
  }
}

test('an EventSource in Chromium resumes with Last-Event-ID after its connection drops', async (t) => {
  const chromium = findChromium()
  if (!chromium) {
    t.skip('chromium is not installed (apt-get install chromium, or set HEARTH_CHROMIUM)')
    return
  }
  const d = await startDaemon()
  const profile = mkdtempSync(join(tmpdir(), 'hearth-chromium-'))
  let browser: ChildProcess | undefined
  let site: TestSite | undefined
  let browserLog = ''
  try {
    const id = await createSession(d)
    site = new TestSite(d, id)
    const port = await site.listen()
    browser = launch(chromium, `http://127.0.0.1:${port}/`, profile)
    browser.stderr?.on('data', (c) => {
      browserLog += c
    })
    const s = site
    await s
      .waitFor('the snapshot', () => s.hasId('1:1'), 30_000)
      .catch((err) => {
        throw new Error(`${err.message}\nchromium: ${browserLog.slice(-2000)}`)
      })

    await produceVisits(d, id, 30, 4) // 1:2 .. 1:31, live
    await s.waitFor('1:31', () => s.hasId('1:31'))
    s.drop()
    await produceVisits(d, id, 30, 4) // 1:32 .. 1:61, while the browser is away
    await s.waitFor('1:61 after the reconnect', () => s.hasId('1:61'))
    await produceVisits(d, id, 10, 4) // 1:62 .. 1:71, live again
    await s.waitFor('1:71', () => s.hasId('1:71'))

    const reports = s.ordered()
    const ids = reports.filter((r) => r.type === 'session.visited').map((r) => r.id)
    const expected = Array.from({ length: 70 }, (_, k) => `1:${k + 2}`)
    assert.deepEqual(ids, expected, 'every event exactly once, in order, across the drop')
    assert.deepEqual(
      reports.filter((r) => r.type === 'snapshot').map((r) => r.id),
      ['1:1'],
      'one snapshot: the reconnect resumed instead of starting over',
    )
    assert.deepEqual(
      reports.filter((r) => r.type === 'reset' || r.type === 'overflow'),
      [],
    )
    assert.equal(reports.filter((r) => r.type === 'open').length, 2)
    // The browser's own reconnect named the last id it had.
    assert.equal(s.proxied.length, 2)
    assert.equal(s.proxied[0].lastEventId, undefined)
    assert.equal(s.proxied[1].lastEventId, '1:31')
    // Chromium admits zstd: the stream reached it compressed and decoded event by event.
    assert.equal(s.proxied[0].encoding, 'zstd')
  } finally {
    if (browser) await stopBrowser(browser)
    site?.server.closeAllConnections()
    site?.server.close()
    rmSync(profile, { recursive: true, force: true })
    assert.equal(await d.stop(), 0)
  }
})
