// The session screen's transcript window in Chromium against a real daemon: a session of a
// few thousand entries (one run whose scripted upstream asks for hundreds of tool calls a
// step) keeps a bounded number of entries mounted while the reader scrolls to its start and
// every page of older history is read in; the entry in view stays where it is as entries
// mount and unmount; and at the bottom the page still follows a streamed answer.
import assert from 'node:assert/strict'
import { mkdtempSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser } from 'playwright-core'
import { answer, callTools } from '../fakes/tool-script.ts'
import { idle, putInput, type Setup, startWithUpstream, waitSession } from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'
import { launchBrowser, openPage, screenshot, type WebPage, webUrl } from './browser.ts'

const STEPS = 7
const CALLS_PER_STEP = 150
/** What the transcript window mounts at most (transcript-window.ts). */
const MAX_MOUNTED = 150

interface WindowState {
  held: number
  first: number
  mounted: number[]
  scrollTop: number
}

async function windowState(w: WebPage): Promise<WindowState> {
  return (await w.page.evaluate(() => {
    const d = (globalThis as any).document
    const list = d.querySelector('.entries')
    return {
      held: Number(list.dataset.held),
      first: Number(list.dataset.first),
      mounted: [...list.querySelectorAll('article.entry[data-position]')].map((e: any) =>
        Number(e.dataset.position),
      ),
      scrollTop: d.querySelector('.transcript').scrollTop,
    }
  })) as WindowState
}

/** The distance from the viewport's top to the entry at that position, in pixels. */
async function offsetOf(w: WebPage, position: number): Promise<number> {
  return (await w.page.evaluate((p) => {
    const d = (globalThis as any).document
    const el = d.querySelector(`.entries article[data-position="${p}"]`)
    return el.getBoundingClientRect().top - d.querySelector('.transcript').getBoundingClientRect().top
  }, position)) as number
}

/** After the page drew twice: the window's measures and the renders they asked for are done. */
async function settled(w: WebPage): Promise<void> {
  await w.page.evaluate(
    () =>
      new Promise((r) => {
        const g = globalThis as any
        g.requestAnimationFrame(() => g.requestAnimationFrame(r))
      }),
  )
}

/** What has the keyboard's focus, and where the transcript's top is: for a failure's message. */
async function focusNote(w: WebPage): Promise<string> {
  return (await w.page.evaluate(() => {
    const d = (globalThis as any).document
    const a = d.activeElement
    const t = d.querySelector('.transcript')
    return `focus on ${a?.tagName.toLowerCase()}.${a?.className}, scrollTop ${t.scrollTop} of ${t.scrollHeight}, "${d.querySelector('.older').textContent}"`
  })) as string
}

/**
 * Resolves once the window has been at rest (no scroll offset set, no entry mounted or
 * unmounted) for that many frames in a row; rejects with what moved if it keeps moving. A
 * window that keeps drawing itself again at rest fights every scroll the reader makes.
 */
async function atRest(w: WebPage, frames = 10): Promise<void> {
  const moves = (await w.page.evaluate(
    (n) =>
      new Promise((resolve) => {
        const g = globalThis as any
        const d = g.document
        const t = d.querySelector('.transcript')
        const seen: string[] = []
        let quiet = 0
        let total = 0
        const onScroll = () => seen.push(`scroll to ${t.scrollTop}`)
        const observer = new g.MutationObserver((ms: any[]) => seen.push(`${ms.length} changes`))
        t.addEventListener('scroll', onScroll)
        observer.observe(d.querySelector('.entries'), { childList: true, attributes: true, subtree: true })
        const frame = () => {
          quiet = seen.length === 0 ? quiet + 1 : 0
          total++
          if (quiet >= n || total >= 20 * n) {
            t.removeEventListener('scroll', onScroll)
            observer.disconnect()
            resolve(quiet >= n ? [] : seen.slice(-12))
          } else {
            seen.length = 0
            g.requestAnimationFrame(frame)
          }
        }
        g.requestAnimationFrame(frame)
      }),
    frames,
  )) as string[]
  assert.deepEqual(moves, [], `the window kept moving at rest: ${moves.join(', ')}`)
}

function assertBounded(s: WindowState, where: string): void {
  assert.ok(s.mounted.length > 0, `${where}: nothing mounted`)
  assert.ok(s.mounted.length <= MAX_MOUNTED, `${where}: ${s.mounted.length} entries mounted`)
  // Mounted entries are one run of consecutive positions, each once.
  for (let i = 1; i < s.mounted.length; i++)
    assert.equal(s.mounted[i], s.mounted[i - 1] + 1, `${where}: mounted ${s.mounted.join(',')}`)
}

describe('the web client: the transcript window of a long session', () => {
  let s: Setup
  let browser: Browser
  let id: string
  let total: number

  before(async () => {
    s = await startWithUpstream()
    browser = await launchBrowser()
    const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-web-window-')))
    id = await createSession(s.d, { kind: 'new', workspace, name: 'long' })
    for (let step = 0; step < STEPS; step++)
      s.upstream.enqueue(
        callTools(
          ...Array.from({ length: CALLS_PER_STEP }, (_, i) => ({
            name: 'read',
            arguments: { path: `missing-${step}-${i}.txt` },
          })),
        ),
      )
    s.upstream.enqueue(answer('All read.'))
    await putInput(s.d, id, { kind: 'message', text: 'read them all', client_id: 'test' })
    // user + per step (the assistant's calls, each call and its result) + the final answer
    total = 1 + STEPS * (1 + 2 * CALLS_PER_STEP) + 1
    await waitSession(s.d, id, (x) => idle(x) && x.preview.transcript_count === total, 50_000)
  })
  after(async () => {
    await browser?.close()
    await s?.d.stop()
    await s?.upstream.close()
  })

  it('pages every entry in while scrolling to the top, a bounded window mounted, the entry in view kept', async (t) => {
    const w = await openPage(browser, webUrl(s.d.url, s.d.token, `/s/${id}`))
    try {
      await w.page.waitForSelector(`.entries article[data-position="${total}"]`)
      assertBounded(await windowState(w), 'at the end')
      // Keyboard first: the transcript scrolls with Page Up and Home once focused.
      await w.page.focus('.transcript')
      const bottom = (await windowState(w)).scrollTop
      await w.page.keyboard.press('PageUp')
      await w.page.waitForFunction(
        (y) => (globalThis as any).document.querySelector('.transcript').scrollTop < y,
        bottom,
      )
      let largest = 0
      // No clock: a loaded machine pages slowly. What fails is a window that stops moving: the
      // same entries held, mounted and scrolled to for many rounds in a row.
      let last = ''
      let stalled = 0
      for (;;) {
        const before = await windowState(w)
        const mark = `${before.first}/${before.held}/${before.mounted[0]}/${before.scrollTop}`
        stalled = mark === last ? stalled + 1 : 0
        last = mark
        assert.ok(stalled < 40, `paging stopped at ${mark}: ${await focusNote(w)}`)
        // To the top, as a reader's Home key does: the older page is read in above the entry
        // that was first, which stays in view. Where Home left the window as it was, the
        // reader drags the scroll bar to the top instead, and the test says what had the focus.
        if (stalled < 3) await w.page.keyboard.press('Home')
        else {
          if (stalled === 3) t.diagnostic(`Home left the window at ${mark}: ${await focusNote(w)}`)
          await w.page.evaluate(() => {
            ;(globalThis as any).document.querySelector('.transcript').scrollTop = 0
          })
        }
        // Let the window settle (and a page of older entries come in when at the top).
        await settled(w)
        if (stalled > 0) await atRest(w)
        const now = await windowState(w)
        assertBounded(now, `held ${now.held}`)
        largest = Math.max(largest, now.mounted.length)
        if (now.first === 1 && now.scrollTop === 0 && now.mounted[0] === 1) break
        if (now.scrollTop === 0 && now.first > 1)
          await w.page
            .waitForFunction(
              (n) => Number((globalThis as any).document.querySelector('.entries').dataset.held) > n,
              now.held,
              { timeout: 10_000 },
            )
            .catch(() => {})
      }
      const end = await windowState(w)
      assert.equal(end.held, total, 'every entry read in, each once')
      assert.ok(largest <= MAX_MOUNTED)
      await screenshot(w.page, 'session-window-top')
      assert.deepEqual(w.errors, [])
    } finally {
      await w.close()
    }
  })

  it('keeps the entry in view where it is while older pages come in and entries unmount', async () => {
    const w = await openPage(browser, webUrl(s.d.url, s.d.token, `/s/${id}`))
    try {
      await w.page.waitForSelector(`.entries article[data-position="${total}"]`)
      // Scroll up in small steps; each time, the entry at the top of the viewport is noted
      // and must be at the same offset once the window settled.
      for (let i = 0; i < 40; i++) {
        const noted = (await w.page.evaluate(() => {
          const d = (globalThis as any).document
          const t = d.querySelector('.transcript')
          t.scrollTop = Math.max(0, t.scrollTop - 500)
          const top = t.getBoundingClientRect().top
          const el = [...d.querySelectorAll('.entries article[data-position]')].find(
            (e: any) => e.getBoundingClientRect().bottom > top,
          ) as any
          return { position: Number(el.dataset.position), offset: el.getBoundingClientRect().top - top }
        })) as { position: number; offset: number }
        await w.page.waitForFunction(() => new Promise((r) => setTimeout(r, 30)))
        await settled(w)
        await atRest(w)
        const after = await offsetOf(w, noted.position)
        assert.ok(
          Math.abs(after - noted.offset) <= 1,
          `entry ${noted.position} moved ${noted.offset} → ${after}`,
        )
        assertBounded(await windowState(w), `step ${i}`)
      }
    } finally {
      await w.close()
    }
  })

  it('gives the transcript the focus of an entry it unmounts, so the keys still scroll it', async () => {
    const w = await openPage(browser, webUrl(s.d.url, s.d.token, `/s/${id}`))
    try {
      await w.page.waitForSelector(`.entries article[data-position="${total}"]`)
      // A tool result's summary near the end, focused as Tab would.
      const focused = (await w.page.evaluate(() => {
        const d = (globalThis as any).document
        const summaries = [...d.querySelectorAll('.entries article[data-position] summary')] as any[]
        const last = summaries[summaries.length - 1]
        last.focus()
        return Number(last.closest('article').dataset.position)
      })) as number
      assert.equal(await w.page.evaluate(() => (globalThis as any).document.activeElement.tagName), 'SUMMARY')
      // Scrolled up until that entry is no longer mounted.
      for (let i = 0; ; i++) {
        assert.ok(i < 200, `entry ${focused} still mounted`)
        const state = await windowState(w)
        if (!state.mounted.includes(focused)) break
        await w.page.evaluate(() => {
          const t = (globalThis as any).document.querySelector('.transcript')
          t.scrollTop = Math.max(0, t.scrollTop - 400)
        })
        await settled(w)
      }
      assert.equal(
        await w.page.evaluate(() => (globalThis as any).document.activeElement.className),
        'transcript',
      )
      const before = (await windowState(w)).scrollTop
      await w.page.keyboard.press('PageDown')
      await w.page.waitForFunction(
        (y) => (globalThis as any).document.querySelector('.transcript').scrollTop > y,
        before,
      )
      // The arrows scroll the focused transcript too (once Page Down's scroll has ended); the
      // session list's choice stays.
      await atRest(w)
      const chosen = await w.page.getAttribute('.session-row.selected', 'data-id')
      const lower = (await windowState(w)).scrollTop
      await w.page.keyboard.press('ArrowUp')
      await w.page.waitForFunction(
        (y) => (globalThis as any).document.querySelector('.transcript').scrollTop < y,
        lower,
      )
      assert.equal(await w.page.getAttribute('.session-row.selected', 'data-id'), chosen)
      assert.deepEqual(w.errors, [])
    } finally {
      await w.close()
    }
  })

  it('follows a streamed answer at the bottom of the long session', async () => {
    const w = await openPage(browser, webUrl(s.d.url, s.d.token, `/s/${id}`))
    try {
      await w.page.waitForSelector(`.entries article[data-position="${total}"]`)
      await w.page.waitForSelector('.session-screen[data-link="live"]')
      const words = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ')
      s.upstream.enqueue(answer(words, { delayMs: 5 }))
      await putInput(s.d, id, { kind: 'message', text: 'more', client_id: 'test' })
      // While it streams, the end of the transcript stays in view.
      await w.page.waitForSelector('.entry-assistant.active')
      await w.page.waitForFunction(
        () => Number((globalThis as any).document.querySelector('.session-screen').dataset.deltas) >= 100,
      )
      const atEnd = async () =>
        (await w.page.evaluate(() => {
          const t = (globalThis as any).document.querySelector('.transcript')
          return t.scrollHeight - t.scrollTop - t.clientHeight
        })) as number
      assert.ok((await atEnd()) < 40, 'following the streamed answer')
      await w.page.waitForSelector(`.entries article[data-position="${total + 2}"]`)
      await settled(w)
      assert.ok((await atEnd()) < 40, 'at the end once committed')
      assertBounded(await windowState(w), 'after the answer')
      await screenshot(w.page, 'session-window-streamed')
    } finally {
      await w.close()
    }
  })
})
