// The session's own screens in Chromium against a real daemon and a scripted upstream: the
// context picture of a session that ran a turn, the workspace's work items as an outline
// (one added and one finished from the page), a fork, a child and a new session started
// from the page, a new session from the sessions screen, and a configuration change that
// meets a stale ETag, kept and retried.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser } from 'playwright-core'
import { answer } from '../fakes/tool-script.ts'
import { getSession, idle, putInput, type Setup, startWithUpstream, waitSession } from '../inputs/helpers.ts'
import { configure, createSession } from '../streams/sse-client.ts'
import { launchBrowser, openPage, screenshot, type WebPage, webUrl } from './browser.ts'

/** The session the page opens after leaving `from`. */
async function openedAfter(w: WebPage, from: string): Promise<string> {
  const hash = await w.page.waitForFunction((old) => {
    const h = (globalThis as any).location.hash as string
    return /^#\/s\/[0-9a-f-]{36}$/.test(h) && h !== `#/s/${old}` ? h : false
  }, from)
  return ((await hash.jsonValue()) as string).slice(4)
}

async function postWork(s: Setup, body: Record<string, unknown>): Promise<string> {
  const r = await s.d.request({
    method: 'POST',
    path: `/extensions/work/items?workspace=${encodeURIComponent(s.d.home)}`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  assert.equal(r.status, 201, r.text())
  return r.json().resource.value.id
}

describe('the web client: context, work items, new sessions and the configuration', () => {
  let s: Setup
  let browser: Browser
  let ran: string

  before(async () => {
    s = await startWithUpstream()
    browser = await launchBrowser()
    ran = await createSession(s.d, { kind: 'new', workspace: s.d.home, name: 'ran once' })
    s.upstream.enqueue(answer('A short answer to fill the history.'))
    await putInput(s.d, ran, { kind: 'message', text: 'hello there', client_id: 'test' })
    await waitSession(s.d, ran, (x) => idle(x) && x.preview.transcript_count > 0)
  })
  after(async () => {
    await browser?.close()
    await s?.d.stop()
    await s?.upstream.close()
  })

  it('draws the context as a bar of its sections, reached from the session screen', async () => {
    const w = await openPage(browser, webUrl(s.d.url, s.d.token, `/s/${ran}`))
    try {
      await w.page.waitForSelector('.session-screen[data-link="live"]')
      await w.page.click('.session-actions a:text("Context")')
      await w.page.waitForSelector('.context-screen[data-loaded="true"]')
      const blocks = await w.page.$$eval('.context-bar .context-block', (els) =>
        els.map((e) => e.getAttribute('data-block')),
      )
      assert.ok(blocks.includes('tools'), `the tools section (${blocks})`)
      assert.ok(
        blocks.some((b) => b?.startsWith('history.')),
        `the history's parts (${blocks})`,
      )
      const api = (await s.d.request({ path: `/sessions/${ran}/context` })).json()
      const shown = await w.page.textContent('.context-screen .estimate')
      assert.equal(shown, `~${api.estimated_tokens.toLocaleString('en-US')} tokens`)
      await screenshot(w.page, 'context')
      assert.deepEqual(w.errors, [])
    } finally {
      await w.close()
    }
  })

  it("shows the workspace's work items as an outline; adds one under another and finishes one", async () => {
    const top = await postWork(s, { title: 'Ship the release' })
    await postWork(s, { title: 'Write the notes', parent_id: top, notes: 'Mention the web client.' })
    await postWork(s, { title: 'Tag the build', parent_id: top, status: 'in_progress' })
    const w = await openPage(browser, webUrl(s.d.url, s.d.token, `/work?w=${encodeURIComponent(s.d.home)}`))
    try {
      await w.page.waitForSelector('.work-screen[data-loaded="true"] .work-item')
      const outline = async () =>
        await w.page.$$eval('.work-item', (els) =>
          els.map(
            (e) =>
              `${e.getAttribute('data-depth')} ${e.querySelector('.mark')?.textContent} ${e.querySelector('.work-title')?.textContent}`,
          ),
        )
      assert.deepEqual(await outline(), ['0 ○ Ship the release', '1 ○ Write the notes', '1 ◐ Tag the build'])
      await w.page.click('.work-item:has-text("Tag the build") .work-title')
      await w.page.fill('.work-add input', 'Announce it')
      await w.page.press('.work-add input', 'Enter')
      await w.page.waitForSelector('.work-item:has-text("Announce it")')
      await w.page.selectOption('.work-item:has-text("Write the notes") select', 'done')
      await w.page.waitForSelector('.work-item.status-done:has-text("Write the notes")')
      assert.deepEqual(await outline(), [
        '0 ○ Ship the release',
        '1 ● Write the notes',
        '1 ◐ Tag the build',
        '2 ○ Announce it',
      ])
      await screenshot(w.page, 'work')
      assert.deepEqual(w.errors, [])
    } finally {
      await w.close()
    }
  })

  it('forks, starts a child and a new session from the session screen, and a new one from the list', async () => {
    const w = await openPage(browser, webUrl(s.d.url, s.d.token, `/s/${ran}`))
    try {
      await w.page.waitForSelector('.session-screen[data-link="live"]')
      await screenshot(w.page, 'session-actions')
      // Keyboard first: the focused button takes Enter (the session list's keys leave it be).
      await w.page.focus('.session-actions [data-action="fork"]')
      await w.page.keyboard.press('Enter')
      const fork = await openedAfter(w, ran)
      await w.page.waitForSelector('.session-screen[data-link="live"] .entry-assistant', { timeout: 15_000 })
      assert.equal((await getSession(s.d, fork)).workspace, s.d.home)
      await w.page.click('.session-actions [data-action="child"]')
      const child = await openedAfter(w, fork)
      assert.equal((await getSession(s.d, child)).parent_id, fork)
      await w.page.click('.session-actions [data-action="new"]')
      const fresh = await openedAfter(w, child)
      const read = await getSession(s.d, fresh)
      assert.equal(read.parent_id, null)
      assert.equal(read.workspace, s.d.home)
      // From the sessions list: a workspace (a recent one offered) and a name.
      await w.page.click('.sessions-screen .new-session')
      await w.page.waitForFunction(
        () => ((globalThis as any).document.querySelector('.new-session-form input')?.value ?? '') !== '',
      )
      await w.page.fill('.new-session-form input[aria-label="name of the new session"]', 'from the list')
      await w.page.click('.new-session-form button[type="submit"]')
      const named = await openedAfter(w, fresh)
      assert.equal((await getSession(s.d, named)).name, 'from the list')
      await w.page.waitForSelector(`.session-row[data-id="${named}"]`)
      assert.deepEqual(w.errors, [])
    } finally {
      await w.close()
    }
  })

  it('changes the configuration; a change elsewhere meanwhile is met, kept and retried', async () => {
    const id = await createSession(s.d, { kind: 'new', workspace: s.d.home, name: 'to configure' })
    const w = await openPage(browser, webUrl(s.d.url, s.d.token, `/s/${id}`), {
      width: 420,
      height: 900,
      colorScheme: 'dark',
    })
    try {
      await w.page.waitForSelector('.session-screen[data-link="live"]')
      await w.page.click('.configure-open')
      await w.page.waitForSelector('.configuration-panel select[aria-label="effort"]')
      await w.page.selectOption('.configuration-panel select[aria-label="effort"]', 'high')
      await w.page.selectOption('.configuration-panel select[aria-label="approval policy"]', 'read-only')
      await configure(s.d, id, { name: 'renamed elsewhere' })
      await w.page.click('.configuration-panel button[type="submit"]')
      await w.page.waitForSelector('.configuration-panel[data-state="stale"] .reload-retry')
      await w.page.locator('.configuration-panel .stale-etag').scrollIntoViewIfNeeded()
      await screenshot(w.page, 'configuration-stale-narrow-dark')
      await w.page.click('.configuration-panel .reload-retry')
      await w.page.waitForSelector('.configuration-panel[data-state="saved"]')
      const c = (await s.d.request({ path: `/sessions/${id}?view=configuration` })).json().value
      assert.equal(c.effort, 'high')
      assert.equal(c.approval_policy, 'read-only')
      assert.equal(c.name, 'renamed elsewhere', 'the other change holds')
      assert.equal(
        await w.page.inputValue('.configuration-panel input[aria-label="name"]'),
        'renamed elsewhere',
      )
      assert.deepEqual(
        w.errors.filter((e) => !/status of 412/.test(e)),
        [],
      )
    } finally {
      await w.close()
    }
  })
})
