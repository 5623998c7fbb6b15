// The session screen in Chromium against a real daemon and a scripted fake upstream: a
// message sent from the page and its answer streamed (Markdown, highlighted code), a stream
// cut mid-answer and resumed with every event once, an approval answered from the page
// while the terminal client watches in tmux, and older history read in as the reader
// scrolls up.
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser } from 'playwright-core'
import { answer, callTools } from '../fakes/tool-script.ts'
import { BIN } from '../helpers/daemon.ts'
import { Tmux } from '../helpers/tmux.ts'
import { getSession, idle, putInput, type Setup, startWithUpstream, waitSession } from '../inputs/helpers.ts'
import { createSession, openSse } from '../streams/sse-client.ts'
import { launchBrowser, openPage, screenshot, type WebPage, webUrl } from './browser.ts'
import { StreamProxy } from './proxy.ts'

/** A 1×1 PNG. */
const PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='

/** The history positions the page shows, in order. */
async function positions(w: WebPage): Promise<number[]> {
  return (await w.page.$$eval('.transcript article.entry[data-position]', (els) =>
    els.map((el) => Number(el.getAttribute('data-position'))),
  )) as number[]
}

/** The output.delta events of a session's log, read from its start up to its cursor now. */
async function loggedDeltas(s: Setup, id: string): Promise<number> {
  const { cursor } = await getSession(s.d, id)
  const stream = openSse(s.d, `/sessions/${id}?after_generation=${cursor.generation}&after_seq=0`)
  const frames = await stream.collect((f) => f.id === `${cursor.generation}:${cursor.sequence}`, 20_000)
  stream.destroy()
  return frames.filter((f) => f.event === 'output.delta').length
}

describe('the web client: the session screen', () => {
  let s: Setup
  let browser: Browser
  const terminals: Tmux[] = []

  const newSession = async (name: string) => {
    const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-web-')))
    return { id: await createSession(s.d, { kind: 'new', workspace, name }), workspace }
  }

  before(async () => {
    s = await startWithUpstream()
    browser = await launchBrowser()
  })
  after(async () => {
    for (const t of terminals) t.kill()
    await browser?.close()
    await s?.d.stop()
    await s?.upstream.close()
  })

  it('sends a message from the page and streams the answer as Markdown with highlighted code', async () => {
    const { id } = await newSession('streamed')
    const reply = 'Here is **bold** and code:\n\n```js\nconst answer = 42\n```\n\nDone.'
    s.upstream.enqueue(answer(reply, { delayMs: 15 }))
    const w = await openPage(browser, webUrl(s.d.url, s.d.token, `/s/${id}`))
    try {
      await w.page.waitForSelector('.session-screen[data-link="live"]')
      await w.page.fill('textarea[aria-label="message"]', 'show me code')
      await w.page.keyboard.press('Enter')
      await w.page.waitForSelector('.entry-assistant[data-position] strong')
      await w.page.waitForSelector('.entry-assistant[data-position] pre.code .hljs-keyword')
      assert.equal(await w.page.textContent('.entry-assistant[data-position] strong'), 'bold')
      assert.equal(await w.page.textContent('.entry-assistant[data-position] pre.code'), 'const answer = 42')
      assert.equal(await w.page.textContent('.entry-user .text'), 'show me code')
      assert.equal(await w.page.$('.entry-assistant.active'), null, 'the committed entry replaced the stream')
      // It came as it streamed: the page applied the answer's deltas before its entry.
      assert.ok(Number(await w.page.getAttribute('.session-screen', 'data-deltas')) > 1)
      assert.deepEqual(await positions(w), [1, 2])
      assert.deepEqual(w.errors, [])
      await screenshot(w.page, 'session-streamed')
    } finally {
      await w.close()
    }
  })

  it('resumes a stream cut mid-answer from its cursor: every event once, none missing', async () => {
    const proxy = new StreamProxy(s.d)
    const origin = await proxy.listen()
    const { id } = await newSession('dropped')
    const words = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ')
    s.upstream.enqueue(answer(words, { delayMs: 40 }))
    const w = await openPage(browser, webUrl(origin, s.d.token, `/s/${id}`))
    try {
      await w.page.waitForSelector('.session-screen[data-link="live"]')
      await putInput(s.d, id, { kind: 'message', text: 'count', client_id: 'test' })
      await w.page.waitForFunction(
        () => Number((globalThis as any).document.querySelector('.session-screen').dataset.deltas) >= 10,
      )
      assert.equal(proxy.dropStreams(), 1)
      await waitSession(s.d, id, (x) => idle(x) && x.preview.transcript_count === 2)
      const { cursor } = await getSession(s.d, id)
      const last = `${cursor.generation}:${cursor.sequence}`
      await w.page.waitForFunction(
        (at) => (globalThis as any).document.querySelector('.session-screen').dataset.lastId === at,
        last,
      )
      // The page took exactly the deltas of the log: a gap would show fewer, a replay more.
      const pageDeltas = Number(await w.page.getAttribute('.session-screen', 'data-deltas'))
      assert.equal(pageDeltas, await loggedDeltas(s, id))
      assert.equal(await w.page.textContent('.entry-assistant[data-position="2"]'), words)
      assert.deepEqual(await positions(w), [1, 2])
      // The second connection resumed from a cursor, not from a new snapshot.
      assert.equal(proxy.streams.length, 2, proxy.streams.join(', '))
      assert.match(proxy.streams[1], /[?&]after_generation=\d+&after_seq=\d+$/)
      assert.doesNotMatch(proxy.streams[1], /tail=/)
    } finally {
      await w.close()
      proxy.close()
    }
  })

  it('answers an approval from the page while the terminal client watches', async () => {
    const { id, workspace } = await newSession('approval')
    const t = Tmux.start([process.execPath, BIN, '--home', s.d.home, 'chat', id], {
      columns: 100,
      rows: 30,
      cwd: workspace,
    })
    terminals.push(t)
    await t.waitFor((x) => /idle · .*fake-model/.test(x), 'the terminal client')
    s.upstream.enqueue(
      callTools({ name: 'write', arguments: { path: 'from-web.txt', content: 'written\n' } }),
      answer('Written.'),
    )
    const w = await openPage(browser, webUrl(s.d.url, s.d.token, `/s/${id}`))
    try {
      await w.page.waitForSelector('.session-screen[data-link="live"]')
      await w.page.fill('textarea[aria-label="message"]', 'write from-web.txt')
      await w.page.keyboard.press('Enter')
      await w.page.waitForSelector('.approval')
      await t.waitFor((x) => /allow\? y allow · n deny · a always/.test(x), 'the question in the terminal')
      assert.match(
        (await w.page.textContent('.approval .note')) ?? '',
        /“Always” allows every write call in this session\./,
      )
      assert.equal(await w.page.textContent('.approval .diff-add'), '+ written')
      await screenshot(w.page, 'session-approval')
      await w.page.click('.approval button:has-text("Allow once")')
      await w.page.waitForSelector('.entry-assistant[data-position]:has-text("Written.")')
      assert.equal(await w.page.$('.approval'), null)
      await t.waitFor(
        (x) => /^ {4}allowed$/m.test(x) && x.includes('Written.'),
        'the terminal saw the answer',
      )
      assert.equal(readFileSync(join(workspace, 'from-web.txt'), 'utf8'), 'written\n')
      await w.page.click('.tool-result summary')
      assert.match((await w.page.textContent('.tool-result .output')) ?? '', /from-web\.txt/)
      await screenshot(w.page, 'session-tool-call')
    } finally {
      await w.close()
    }
  })

  it("shows a message's image, read with the token into a blob: address", async () => {
    const { id } = await newSession('image')
    s.upstream.enqueue(answer('A pixel.'))
    await putInput(s.d, id, {
      kind: 'message',
      text: 'look',
      client_id: 'test',
      images: [{ media_type: 'image/png', data: PIXEL_PNG }],
    })
    await waitSession(s.d, id, (x) => idle(x) && x.preview.transcript_count === 2)
    const w = await openPage(browser, webUrl(s.d.url, s.d.token, `/s/${id}`))
    try {
      await w.page.waitForFunction(() => {
        const img = (globalThis as any).document.querySelector('.entry-user img.entry-image')
        return img?.complete && img.naturalWidth === 1
      })
      assert.match((await w.page.getAttribute('.entry-user img.entry-image', 'src')) ?? '', /^blob:/)
      assert.deepEqual(w.errors, [], 'no CSP violation')
    } finally {
      await w.close()
    }
  })

  it('shows the waiting messages and interrupts the run with them from the page', async () => {
    const { id } = await newSession('queued')
    s.upstream.enqueue(answer(Array.from({ length: 200 }, (_, i) => `slow${i}`).join(' '), { delayMs: 50 }))
    const w = await openPage(browser, webUrl(s.d.url, s.d.token, `/s/${id}`))
    try {
      await w.page.waitForSelector('.session-screen[data-link="live"]')
      await putInput(s.d, id, { kind: 'message', text: 'first', client_id: 'test' })
      await w.page.waitForSelector('.entry-assistant.active')
      await putInput(s.d, id, { kind: 'message', text: 'second, waiting', client_id: 'test' })
      await w.page.waitForSelector('.queue li:has-text("second, waiting")')
      assert.equal(await w.page.textContent('.queue .note'), '1 waiting message')
      await screenshot(w.page, 'session-queue')
      await w.page.click('button.interrupt')
      await waitSession(s.d, id, idle)
      await w.page.waitForSelector('.session-screen[data-phase="idle"]')
      assert.equal(await w.page.$('.queue'), null, 'the waiting message was cancelled with the run')
      assert.equal(await w.page.$('button.interrupt'), null)
      assert.equal((await getSession(s.d, id)).pending_inputs.length, 0)
    } finally {
      await w.close()
    }
  })

  it('reads older history in as the reader scrolls up, each entry once', async () => {
    const { id } = await newSession('long')
    const turns = 35
    for (let i = 0; i < turns; i++) {
      s.upstream.enqueue(answer(`Answer ${i}.`))
      await putInput(s.d, id, { kind: 'message', text: `question ${i}`, client_id: 'test' })
      await waitSession(s.d, id, (x) => idle(x) && x.preview.transcript_count === 2 * (i + 1))
    }
    const w = await openPage(browser, webUrl(s.d.url, s.d.token, `/s/${id}`))
    try {
      await w.page.waitForSelector(`.entry[data-position="${2 * turns}"]`)
      const first = await positions(w)
      assert.ok(first[0] > 1, `the first page starts later than the first entry (${first[0]})`)
      await screenshot(w.page, 'session-long')
      // Scrolling to the top reads the pages before, until the first entry. No clock: what
      // fails is paging that stops, the same entries held for many scrolls in a row.
      let last = -1
      let stalled = 0
      while ((await w.page.$('.entries[data-first="1"]')) === null) {
        const held = Number(await w.page.getAttribute('.entries', 'data-held'))
        stalled = held === last ? stalled + 1 : 0
        last = held
        assert.ok(stalled < 10, `paging stopped at ${held} entries held`)
        await w.page.evaluate(() => {
          ;(globalThis as any).document.querySelector('.transcript').scrollTop = 0
        })
        // The next scroll waits for the page read it started.
        await w.page
          .waitForFunction(
            (n) => Number((globalThis as any).document.querySelector('.entries').dataset.held) > n,
            Number(await w.page.getAttribute('.entries', 'data-held')),
            { timeout: 5_000 },
          )
          .catch(() => {})
      }
      // Every entry held once; those mounted (the transcript's window) from the first on.
      assert.equal(Number(await w.page.getAttribute('.entries', 'data-held')), 2 * turns)
      await w.page.evaluate(() => {
        ;(globalThis as any).document.querySelector('.transcript').scrollTop = 0
      })
      await w.page.waitForSelector('.entry[data-position="1"]')
      const mounted = await positions(w)
      assert.deepEqual(
        mounted,
        Array.from({ length: mounted.length }, (_, i) => i + 1),
      )
    } finally {
      await w.close()
    }
  })
})
