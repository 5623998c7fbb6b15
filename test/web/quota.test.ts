// The quota screen in Chromium against a real daemon whose state.db was seeded with the
// clients' fixture (test/helpers/quota-seed.ts) — the readings a stand-in usage core would
// have recorded: a@example.test's 5h limit fresh and its 7d limit stale by age with more
// than five pages of trail, b@example.test's limit past its reset, c@example.test's failed
// poll. Each limit gets a chart of its trail; stale readings and the failure are marked.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser } from 'playwright-core'
import type { TestDaemon } from '../helpers/daemon.ts'
import { quotaFixture, startQuotaDaemon } from '../helpers/quota-seed.ts'
import { launchBrowser, openPage, screenshot, type WebPage, webUrl } from './browser.ts'

const account = (a: string) => `.quota-account[data-account="${a}"]`

/** The limits the page shows, `account limit percent stale?`. */
async function limits(w: WebPage): Promise<string[]> {
  return await w.page.$$eval('.quota-limit', (els) =>
    els.map((el) => {
      const acc = el.closest('.quota-account')?.getAttribute('data-account')
      const pct = el.querySelector('.percent')?.textContent
      return `${acc} ${el.getAttribute('data-limit')} ${pct}${el.getAttribute('data-stale') === 'true' ? ' stale' : ''}`
    }),
  )
}

describe('the web client: quota', () => {
  let d: TestDaemon
  let empty: TestDaemon
  let browser: Browser

  before(async () => {
    d = await startQuotaDaemon({ readings: quotaFixture(Date.now()) })
    empty = await startQuotaDaemon()
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await d?.stop()
    await empty?.stop()
  })

  it("charts each limit's trail, the stale ones and the failed poll marked", async () => {
    const w = await openPage(browser, webUrl(d.url, d.token, '/quota'), { width: 1200, height: 1100 })
    try {
      await w.page.waitForSelector('.quota-screen[data-loaded="true"]')
      await w.page.waitForFunction(
        () => (globalThis as any).document.querySelectorAll('.quota-chart canvas').length === 3,
      )
      assert.deepEqual(await limits(w), [
        'a@example.test primary 42%',
        'a@example.test secondary 60% stale',
        'b@example.test primary ? stale',
      ])
      assert.match((await w.page.textContent(account('c@example.test'))) ?? '', /Poll failed .*token expired/)
      // The weekly trail reaches past five pages of 200: the page says the oldest are left out.
      const weekly = await w.page.textContent(
        `${account('a@example.test')} .quota-limit[data-limit="secondary"] .note`,
      )
      assert.match(weekly ?? '', /1000 readings .*capped/)
      const session = await w.page.textContent(
        `${account('a@example.test')} .quota-limit[data-limit="primary"] .note`,
      )
      assert.match(session ?? '', /48 readings over 1d/)
      await screenshot(w.page, 'quota')
      assert.deepEqual(w.errors, [])
    } finally {
      await w.close()
    }
  })

  it('fits a narrow dark screen', async () => {
    const w = await openPage(browser, webUrl(d.url, d.token, '/quota'), {
      width: 400,
      height: 900,
      colorScheme: 'dark',
    })
    try {
      await w.page.waitForFunction(
        () => (globalThis as any).document.querySelectorAll('.quota-chart canvas').length === 3,
      )
      const widths = await w.page.$$eval('.quota-chart', (els) =>
        els.map((e) => (e as any).scrollWidth as number),
      )
      for (const width of widths) assert.ok(width <= 400, `a chart fits the screen (${width}px)`)
      await screenshot(w.page, 'quota-narrow-dark')
    } finally {
      await w.close()
    }
  })

  it('without readings says how to get some', async () => {
    const w = await openPage(browser, webUrl(empty.url, empty.token, '/quota'))
    try {
      await w.page.waitForSelector('.quota-screen[data-loaded="true"]')
      assert.match((await w.page.textContent('.quota-screen')) ?? '', /No reading yet: sign in/)
    } finally {
      await w.close()
    }
  })
})
