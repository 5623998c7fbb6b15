// The web client: what a first visit downloads (gzip and brotli, as the daemon sends them),
// the time from navigation to the first session list on loopback in headless Chromium (the
// system's browser; the figures are left out when none is installed), a fresh browser
// context each round, so nothing is cached, against a daemon holding 50 sessions; the
// page's frame times while an answer of 20,000 deltas streams into an open session; and the
// memory of a tab holding a 10,000-entry session scrolled from its end to its start.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { type Browser, chromium } from 'playwright-core'
import { v7 as uuidv7 } from 'uuid'
import { homeWithConfig, ms, percentile, ROOT, type Row, type Section, spawnDaemon } from '../lib.ts'
import { LONG_SESSION, longSessionDaemon, tabMemory } from './web-memory.ts'
import { pacedUpstream, STREAM_DELTAS, streamFrameTimes } from './web-stream.ts'

const WEB = join(ROOT, 'dist', 'web')
const SESSIONS = 50
const ROUNDS = 15

/** The files the first visit loads: index.html, what it names, and the chunks they import. */
function firstVisitFiles(): string[] {
  const index = readFileSync(join(WEB, 'index.html'), 'utf8')
  const files = new Set(['index.html'])
  const queue = [...index.matchAll(/(?:src|href)="([\w.-]+\.(?:js|css))"/g)].map((m) => m[1])
  while (queue.length > 0) {
    const name = queue.shift() as string
    if (files.has(name)) continue
    files.add(name)
    if (name.endsWith('.js'))
      for (const m of readFileSync(join(WEB, name), 'utf8').matchAll(
        /(?:from|import)\s*"\.\/([\w.-]+\.js)"/g,
      ))
        queue.push(m[1])
  }
  return [...files]
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`
const sizeOf = (names: string[], ext: string) =>
  names.reduce((sum, n) => sum + statSync(join(WEB, n + ext)).size, 0)

function sizeRows(): Row[] {
  const first = firstVisitFiles()
  const grammars = readdirSync(WEB).filter((n) => /^grammars-[A-Z0-9]+\.js$/.test(n))
  const latest = grammars.sort((a, b) => statSync(join(WEB, b)).mtimeMs - statSync(join(WEB, a)).mtimeMs)[0]
  return [
    { figure: 'web: first visit, gzip', measured: kb(sizeOf(first, '.gz')) },
    { figure: 'web: first visit, brotli (as sent)', measured: kb(sizeOf(first, '.br')) },
    { figure: 'web: first visit, uncompressed', measured: kb(sizeOf(first, '')) },
    ...(latest
      ? [
          {
            figure: 'web: highlighter chunk (on first code block), brotli',
            measured: kb(sizeOf([latest], '.br')),
          },
        ]
      : []),
  ]
}

async function createSessions(url: string, token: string): Promise<void> {
  for (let i = 0; i < SESSIONS; i++) {
    const r = await fetch(`${url}/sessions/${uuidv7()}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'if-none-match': '*' },
      body: JSON.stringify({ kind: 'new', workspace: ROOT, name: `session ${i}` }),
    })
    if (r.status !== 201) throw new Error(`create: ${r.status} ${await r.text()}`)
  }
}

/** Milliseconds from navigation start to the first session list drawn, per round. */
async function firstListTimes(browser: Browser, address: string): Promise<number[]> {
  const times: number[] = []
  for (let i = 0; i < ROUNDS; i++) {
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(address)
    const handle = await page.waitForFunction(
      (n) => {
        const d = (globalThis as any).document
        return d.querySelectorAll('.session-row').length >= n ? (globalThis as any).performance.now() : 0
      },
      SESSIONS,
      { polling: 'raf' },
    )
    times.push(Number(await handle.jsonValue()))
    await context.close()
  }
  return times
}

export const web: Section = {
  name: 'web',
  description: `the web client: first-visit bytes, navigation to the first list of ${SESSIONS} sessions, streaming frames, a long session's memory`,
  async run(): Promise<Row[]> {
    if (!existsSync(join(WEB, 'index.html'))) throw new Error('dist/web is not built: npm run build')
    const rows = sizeRows()
    const executablePath = ['/usr/bin/chromium', process.env.HEARTH_CHROMIUM].find((p) => p && existsSync(p))
    if (!executablePath) return [...rows, { figure: 'web: first session list', measured: 'no chromium' }]
    const up = await pacedUpstream()
    const home = homeWithConfig({
      providers: {
        default_profile: 'b',
        profiles: { b: { endpoint: up.url, protocol: 'responses', model: 'm' } },
      },
    })
    const d = await spawnDaemon(home)
    const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu'] })
    try {
      await createSessions(d.url, d.token)
      const times = await firstListTimes(browser, `${d.url}/web/#token=${d.token}`)
      const { frames, scriptMs } = await streamFrameTimes(browser, d, home)
      const long = await longSessionDaemon()
      const memory = await tabMemory(browser, long.d, long.sid).finally(() => long.d.stop())
      const tab = `web: a tab holding a ${LONG_SESSION.toLocaleString('en')}-entry session, scrolled through`
      const list = `web: navigation to the first list of ${SESSIONS} sessions`
      const streaming = `web: frame time while ${STREAM_DELTAS} deltas stream`
      return [
        ...rows,
        { figure: `${list} p50`, measured: ms(percentile(times, 50)) },
        { figure: `${list} p95`, measured: ms(percentile(times, 95)) },
        { figure: `${streaming} p50`, measured: ms(percentile(frames, 50)) },
        { figure: `${streaming} p95`, measured: ms(percentile(frames, 95)) },
        { figure: `${streaming}: frames drawn`, measured: String(frames.length) },
        { figure: `${streaming}: the page's script time`, measured: ms(scriptMs, 0) },
        { figure: `${tab}: JS heap after GC`, measured: `${(memory.heapBytes / 1048576).toFixed(1)} MB` },
        { figure: `${tab}: DOM elements`, measured: String(memory.elements) },
        { figure: `${tab}: entries mounted`, measured: String(memory.mounted) },
        { figure: `${tab}: time to page it all in`, measured: ms(memory.scrollMs, 0) },
        { figure: `${tab}: first position reached`, measured: String(memory.reached) },
      ]
    } finally {
      await browser.close()
      await d.stop()
      up.close()
    }
  },
}
