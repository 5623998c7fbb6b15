// A session whose MCP server needs a sign-in, in the web client's session screen (Chromium,
// real daemon, the SDK server of test/mcp-kernel that refuses hearth): the notice says so
// once the server is left out, and its Sign in button starts the login of `mcp:<server>`
// (the sign-in screen's own code), opening the authorization server's page in a new tab.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser } from 'playwright-core'
import { answer } from '../fakes/tool-script.ts'
import { idle, message, putInput, waitSession } from '../inputs/helpers.ts'
import { SignedInMcpServer } from '../mcp-kernel/signed-in-server.ts'
import { TokenServer } from '../mcp-kernel/token-server.ts'
import { change } from '../settings/helpers.ts'
import { type AgentSetup, newSession, startAgent } from '../tools/agent-helpers.ts'
import { launchBrowser, openPage, screenshot, webUrl } from './browser.ts'

describe('the web client: a server that needs a sign-in', () => {
  let s: AgentSetup
  let server: SignedInMcpServer
  let as: TokenServer
  let browser: Browser
  before(async () => {
    server = await SignedInMcpServer.start()
    as = await TokenServer.start()
    server.authorizationServer = as.url
    s = await startAgent({ tools: { approval_policy: 'auto' } })
    await change(s.d, 'mcp', { servers: { bare: { url: server.url } } })
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await s?.d.stop()
    await s?.upstream.close()
    await server?.close()
    await as?.close()
  })

  it('shows the notice when the server is left out, and Sign in starts its login in a new tab', async () => {
    const sid = await newSession(s)
    const w = await openPage(browser, webUrl(s.d.url, s.d.token, `/s/${sid}`))
    try {
      await w.page.waitForSelector('.session-screen[data-link="live"]')
      assert.equal(await w.page.$('.sign-in-notice'), null, 'nothing is known to need a sign-in yet')
      s.upstream.enqueue(answer('hello without it'))
      assert.equal((await putInput(s.d, sid, message('hello'))).status, 202)
      // Shown from the composition.changed event, while the page is open.
      const notice = await w.page.waitForSelector('.sign-in-notice li[data-server="bare"]', {
        timeout: 30_000,
      })
      assert.match((await notice.textContent()) ?? '', /bare needs a sign-in/)
      await waitSession(s.d, sid, idle)
      await screenshot(w.page, 'session-server-sign-in')

      // Read again with the session: the notice comes from the snapshot too.
      await w.page.reload()
      await w.page.waitForSelector('.sign-in-notice li[data-server="bare"]')
      const [tab] = await Promise.all([
        w.context.waitForEvent('page'),
        w.page.click('.sign-in-notice li[data-server="bare"] button'),
      ])
      await tab.waitForURL((u) => u.href.startsWith(`${as.url}/authorize`))
      const address = new URL(tab.url())
      assert.equal(address.searchParams.get('resource'), server.url, 'the resource indicator')
      assert.equal(await tab.evaluate('window.opener'), null)
      const panel = await w.page.waitForSelector('.sign-in-notice .login-panel[data-state="waiting"]')
      assert.match((await panel.textContent()) ?? '', /mcp:bare/)
      const logins = (await s.d.request({ path: '/auth' })).json().logins as Array<{ provider: string }>
      assert.deepEqual(
        logins.map((l) => l.provider),
        ['mcp:bare'],
      )
      await screenshot(w.page, 'session-server-sign-in-started')
      await w.page.click('.sign-in-notice .login-panel button.cancel')
      await w.page.waitForSelector('.sign-in-notice .login-panel[data-state="cancelled"]')
      assert.deepEqual(w.errors, [])
    } finally {
      await w.close()
    }
  })
})
