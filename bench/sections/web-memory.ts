// The web bench's long session: a tab holding a session of 10,000 history entries (written
// straight into state.db, as the context bench does), scrolled from its end to its start so
// that every page of older history is read in, then measured: the JavaScript heap after a
// forced garbage collection (CDP HeapProfiler.collectGarbage, Runtime.getHeapUsage), the
// document's element count, and the entries mounted.
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { v7 as uuidv7 } from 'uuid'
import { openStore } from '../../src/store/db.ts'
import { type BenchDaemon, spawnDaemon, tempHome } from '../lib.ts'
import { seed } from './context.ts'
import { call } from './runs.ts'

export const LONG_SESSION = 10_000

export interface TabMemory {
  heapBytes: number
  elements: number
  mounted: number
  /** The first position on the page when measured: 1 once paged in to the start within 90 s. */
  reached: number
  /** Milliseconds from the page's open to the first entry read in (or to the 90 s limit). */
  scrollMs: number
}

/** A daemon holding one session of 10,000 entries. */
export async function longSessionDaemon(): Promise<{ d: BenchDaemon; sid: string }> {
  const home = tempHome()
  let d = await spawnDaemon(home, { keepHome: true, env: { HEARTH_KERNEL_SPARE: '0' } })
  const sid = uuidv7()
  await call(d, 'PUT', `/sessions/${sid}`, { kind: 'new', workspace: home })
  await d.stop()
  const db = openStore(join(home, 'state.db'))
  seed(db, sid)
  db.pragma('wal_checkpoint(TRUNCATE)')
  db.close()
  d = await spawnDaemon(home, { env: { HEARTH_KERNEL_SPARE: '0' } })
  return { d, sid }
}

/** Opens the session, scrolls to its first entry, and measures what the tab holds. */
export async function tabMemory(browser: Browser, d: BenchDaemon, sid: string): Promise<TabMemory> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } })
  const page = await context.newPage()
  try {
    const t0 = performance.now()
    await page.goto(`${d.url}/web/#token=${d.token}&route=/s/${sid}`)
    await page.waitForSelector(`article.entry[data-position="${LONG_SESSION}"]`)
    // To the top again and again: each time, the page of entries before is read in.
    const deadline = Date.now() + 90_000
    for (;;) {
      const done = await page.evaluate(() => {
        const d = (globalThis as any).document
        const t = d.querySelector('.transcript')
        if (t.scrollTop === 0 && d.querySelector('article.entry[data-position="1"]')) return true
        t.scrollTop = 0
        return false
      })
      if (done) break
      if (Date.now() > deadline) break // measured as far as it came: the rows say how far
      await new Promise((r) => setTimeout(r, 150))
    }
    const scrollMs = performance.now() - t0
    const cdp = await context.newCDPSession(page)
    await cdp.send('HeapProfiler.collectGarbage')
    await cdp.send('HeapProfiler.collectGarbage')
    const heap = await cdp.send('Runtime.getHeapUsage')
    const counts = (await page.evaluate(() => {
      const d = (globalThis as any).document
      const shown = [...d.querySelectorAll('article.entry[data-position]')].map((e: any) =>
        Number(e.dataset.position),
      )
      return [d.getElementsByTagName('*').length, shown.length, Math.min(...shown)]
    })) as [number, number, number]
    return { heapBytes: heap.usedSize, elements: counts[0], mounted: counts[1], scrollMs, reached: counts[2] }
  } finally {
    await context.close()
  }
}
