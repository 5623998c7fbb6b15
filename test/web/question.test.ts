// An MCP server's question in the web client's session screen, in Chromium against a real
// daemon whose session runs the SDK server of test/mcp-elicit (its tools ask the person): a
// form filled in and sent with Enter (the content reaches the server), a bad value showing
// the daemon's field error, decline, a question answered from another client closing the
// card, and URL mode (Open opens the page in a new tab without a way back, and accepts).
import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, it } from 'node:test'
import type { Browser } from 'playwright-core'
import { answer, callTools } from '../fakes/tool-script.ts'
import { until } from '../helpers/daemon.ts'
import { idle, message, putInput, waitSession } from '../inputs/helpers.ts'
import { type AskSetup, answersOf, reply, startAsking, waitAsked } from '../mcp-elicit/helpers.ts'
import { newSession } from '../tools/agent-helpers.ts'
import { launchBrowser, openPage, screenshot, type WebPage, webUrl } from './browser.ts'

const CARD = 'section.question'

describe('the web client: a server asks the person', () => {
  let s: AskSetup
  let browser: Browser
  const pages: WebPage[] = []
  before(async () => {
    s = await startAsking()
    browser = await launchBrowser()
  })
  after(async () => {
    for (const w of pages) await w.close()
    await browser?.close()
    await s?.d.stop()
    await s?.upstream.close()
  })
  let seen = 0
  beforeEach(() => {
    s.upstream.reset()
    seen = answersOf(s.log).length
  })
  /** The answer that reached the server from `tool` during this test. */
  const answerReached = (tool: string) =>
    until(
      `the server's answer to ${tool}`,
      () =>
        answersOf(s.log)
          .slice(seen)
          .find((a) => a.tool === tool),
      20_000,
      20,
    )

  /** Opens the page on a new session whose model calls `tool`; resolves once the card shows. */
  async function asked(tool: string, args: Record<string, unknown> = {}) {
    const sid = await newSession(s)
    const w = await openPage(browser, webUrl(s.d.url, s.d.token, `/s/${sid}`))
    pages.push(w)
    await w.page.waitForSelector('.session-screen[data-link="live"]')
    s.upstream.enqueue(callTools({ name: `mcp__asker__${tool}`, arguments: args }), answer('done'))
    assert.equal((await putInput(s.d, sid, message(`call ${tool}`))).status, 202)
    const reason = await waitAsked(s.d, sid)
    await w.page.waitForSelector(`${CARD}[data-request="${reason.request_id}"]`)
    return { sid, w, reason }
  }

  it('a form: the server’s words and its fields, filled in and sent with Enter, reach the server', async () => {
    const { sid, w } = await asked('ask_form')
    assert.equal(await w.page.textContent(`${CARD} .server`), 'asker')
    assert.equal(await w.page.textContent(`${CARD} .server-words`), 'Who are you?')
    assert.equal(await w.page.inputValue('#field-color'), 'green', 'the default')
    assert.equal(await w.page.getAttribute('#field-age', 'max'), '150')
    assert.equal(await w.page.getAttribute('#field-name', 'maxlength'), '40')
    assert.equal(await w.page.getAttribute('#field-email', 'type'), 'email')
    assert.ok(await w.page.$('#field-name[required]'), 'name is required')
    await w.page.fill('#field-name', 'Ada Lovelace')
    await w.page.fill('#field-age', '36')
    await w.page.selectOption('#field-color', 'red')
    await w.page.check('#field-tags input[value="a"]')
    await w.page.check('#field-tags input[value="c"]')
    await screenshot(w.page, 'session-question-form')
    await w.page.focus('#field-name')
    await w.page.keyboard.press('Enter')
    const reached = await answerReached('ask_form')
    assert.equal(reached.action, 'accept')
    assert.deepEqual(reached.content, {
      name: 'Ada Lovelace',
      age: 36,
      color: 'red',
      tags: ['a', 'c'],
      subscribe: false,
    })
    await w.page.waitForSelector(CARD, { state: 'detached' })
    await waitSession(s.d, sid, idle)
    assert.deepEqual(
      w.errors.filter((e) => !e.includes('422')),
      [],
    )
  })

  it('a bad value shows the daemon’s error under its field; Decline declines', async () => {
    const { w } = await asked('ask_form')
    await w.page.fill('#field-name', 'x')
    await w.page.click(`${CARD} button[type="submit"]`)
    const error = await w.page.waitForSelector(`${CARD} [data-field="name"] .field-error`)
    assert.match((await error.textContent()) ?? '', /\S/)
    assert.equal(await w.page.$(`${CARD} [data-field="age"] .field-error`), null, 'only the bad field')
    await screenshot(w.page, 'session-question-field-error')
    await w.page.click(`${CARD} button.deny`)
    assert.equal((await answerReached('ask_form')).action, 'decline')
    await w.page.waitForSelector(CARD, { state: 'detached' })
  })

  it('Esc cancels', async () => {
    const { w } = await asked('ask_read', { label: 'branch' })
    await w.page.focus('#field-pick')
    await w.page.keyboard.press('Escape')
    const reached = await answerReached('ask_read')
    assert.equal(reached.action, 'cancel')
    await w.page.waitForSelector(CARD, { state: 'detached' })
  })

  it('answered from another client, the card closes', async () => {
    const { sid, w, reason } = await asked('ask_form')
    const r = await reply(s.d, sid, reason.request_id, 'accept', { name: 'Grace' })
    assert.equal(r.status, 202)
    await w.page.waitForSelector(CARD, { state: 'detached' })
    assert.deepEqual((await answerReached('ask_form')).content, { name: 'Grace' })
    assert.deepEqual(w.errors, [])
  })

  it('URL mode: the address is shown; Open opens it in a new tab without a way back and accepts', async () => {
    const url = `${s.d.url}/signed-in-elsewhere`
    const { w } = await asked('open_page', { url })
    assert.equal(await w.page.textContent(`${CARD} .question-url`), url)
    assert.equal(await w.page.$(`${CARD} form`), null)
    await screenshot(w.page, 'session-question-url')
    const [tab] = await Promise.all([w.context.waitForEvent('page'), w.page.click(`${CARD} button.open`)])
    await tab.waitForURL(url)
    assert.equal(await tab.evaluate('window.opener'), null, 'the page cannot reach back')
    assert.equal((await answerReached('open_page')).action, 'accept')
    await w.page.waitForSelector(CARD, { state: 'detached' })
  })
})
