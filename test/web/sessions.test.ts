// The sessions screen in Chromium against a real daemon: the tree (a child under its
// parent), pinned first, archived apart, a session that ran before its settings changed
// marked, search as you type, the list live through the collection stream, the keyboard,
// and a narrow dark screen.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser } from 'playwright-core'
import { answer } from '../fakes/tool-script.ts'
import { idle, putInput, type Setup, startWithUpstream, waitSession } from '../inputs/helpers.ts'
import { change } from '../settings/helpers.ts'
import { configure, createSession } from '../streams/sse-client.ts'
import { launchBrowser, openPage, screenshot, type WebPage, webUrl } from './browser.ts'

/** The rows as the page shows them: name, depth, marks. */
async function rows(w: WebPage): Promise<string[]> {
  return await w.page.$$eval('.session-list > .session-row', (els) =>
    els.map((el) => {
      const name = el.querySelector('.name')?.textContent ?? ''
      const depth = (el as { style: { getPropertyValue(n: string): string } }).style.getPropertyValue(
        '--depth',
      )
      const reload = el.querySelector('.badge') ? ' [needs reload]' : ''
      return `${depth}:${name}${reload}`
    }),
  )
}

describe('the web client: the sessions screen', () => {
  let s: Setup
  let browser: Browser
  const ids: Record<string, string> = {}

  before(async () => {
    s = await startWithUpstream()
    browser = await launchBrowser()
    const workspace = s.d.home
    ids.alpha = await createSession(s.d, { kind: 'new', workspace, name: 'alpha' })
    ids.beta = await createSession(s.d, { kind: 'new', workspace, name: 'beta' })
    ids.child = await createSession(s.d, { kind: 'child', parent_id: ids.beta, name: 'beta child' })
    ids.old = await createSession(s.d, { kind: 'new', workspace, name: 'old one' })
    await configure(s.d, ids.old, { preferences: { archived: true } })
    ids.pinned = await createSession(s.d, { kind: 'new', workspace, name: 'pinned one' })
    await configure(s.d, ids.pinned, { preferences: { pinned: true } })
    // alpha runs a turn, then its profile's settings change: it needs a reload.
    s.upstream.enqueue(answer('Hello there.'))
    await putInput(s.d, ids.alpha, { kind: 'message', text: 'hi', client_id: 'test' })
    await waitSession(s.d, ids.alpha, (x) => idle(x) && x.preview.transcript_count > 0)
    await change(s.d, 'providers', { profiles: { fake: { effort: 'low' } } })
  })
  after(async () => {
    await browser?.close()
    await s?.d.stop()
    await s?.upstream.close()
  })

  it('shows the tree, pinned first, archived apart, the stale session marked; search narrows it', async () => {
    const w = await openPage(browser, webUrl(s.d.url, s.d.token))
    try {
      await w.page.waitForSelector(`.session-row[data-id="${ids.child}"]`)
      assert.deepEqual(await rows(w), [
        '0:★ pinned one',
        '0:alpha [needs reload]',
        '0:beta',
        '1:↳ beta child',
      ])
      assert.equal(await w.page.$(`.session-row[data-id="${ids.old}"]`), null, 'archived apart, hidden')
      await w.page.click('.archived button')
      await w.page.waitForSelector(`.archived .session-row[data-id="${ids.old}"]`)
      await screenshot(w.page, 'sessions')
      await w.page.keyboard.press('/')
      await w.page.keyboard.type('child')
      await w.page.waitForFunction(
        () => (globalThis as any).document.querySelectorAll('.session-list > .session-row').length === 1,
      )
      assert.deepEqual(await rows(w), ['0:beta child'])
      await w.page.keyboard.press('Escape')
      await w.page.waitForSelector(`.session-row[data-id="${ids.alpha}"]`)
      assert.deepEqual(w.errors, [])
    } finally {
      await w.close()
    }
  })

  it('follows the collection stream: a new session and a rename appear without a reload', async () => {
    const w = await openPage(browser, webUrl(s.d.url, s.d.token))
    try {
      await w.page.waitForSelector('.sessions-screen[data-link="live"]')
      await w.page.waitForSelector(`.session-row[data-id="${ids.beta}"]`)
      const fresh = await createSession(s.d, { kind: 'new', workspace: s.d.home, name: 'fresh' })
      await w.page.waitForSelector(`.session-row[data-id="${fresh}"]`)
      await configure(s.d, ids.beta, { name: 'beta renamed' })
      await w.page.waitForFunction(
        (id) =>
          (globalThis as any).document.querySelector(`.session-row[data-id="${id}"] .name`)?.textContent ===
          'beta renamed',
        ids.beta,
      )
    } finally {
      await w.close()
    }
  })

  it('opens a session from the keyboard, and a narrow dark screen shows one pane', async () => {
    const w = await openPage(browser, webUrl(s.d.url, s.d.token), {
      width: 420,
      height: 760,
      colorScheme: 'dark',
    })
    try {
      await w.page.waitForSelector(`.session-row[data-id="${ids.pinned}"]`)
      await screenshot(w.page, 'sessions-narrow-dark')
      // Down to alpha (the rows above it: the pinned one, and the fresh one of the case before).
      const selected = () => w.page.getAttribute('.session-row.selected', 'data-id')
      for (let i = 0; i < 5 && (await selected()) !== ids.alpha; i++) {
        const before = await selected()
        await w.page.keyboard.press('ArrowDown')
        await w.page.waitForFunction(
          (id) => (globalThis as any).document.querySelector('.session-row.selected')?.dataset.id !== id,
          before,
        )
      }
      await w.page.keyboard.press('Enter')
      await w.page.waitForSelector('.session-screen[data-link="live"]')
      assert.equal(new URL(w.page.url()).hash, `#/s/${ids.alpha}`)
      assert.equal(await w.page.isVisible('.sessions-screen'), false, 'one pane on a narrow screen')
      await w.page.waitForSelector('.entry-assistant')
      await screenshot(w.page, 'session-narrow-dark')
    } finally {
      await w.close()
    }
  })
})
