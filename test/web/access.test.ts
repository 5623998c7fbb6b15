// The web client's serving and its access rules, in real Chromium against a real daemon:
// the page's files and their headers, the token taken from the fragment and never seen by
// the daemon or kept in a cookie, the page without a token (and with a refused one), and
// what another origin and a rebinding host name get.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import type { Browser } from 'playwright-core'
import { chromium } from 'playwright-core'
import { WEB_CSP } from '../../src/http/web-files.ts'
import { logText, runCli, startDaemon, type TestDaemon, until } from '../helpers/daemon.ts'
import { createSession } from '../streams/sse-client.ts'
import { chromiumPath, openPage, screenshot, webUrl } from './browser.ts'

const EVIL = 'evil.test'

describe('the web client: serving and access', () => {
  let d: TestDaemon
  let browser: Browser
  let evil: Server
  let evilPort = 0
  let script = ''

  before(async () => {
    d = await startDaemon()
    const executablePath = chromiumPath()
    assert.ok(executablePath, 'chromium is installed')
    // evil.test resolves to this machine: a page of another origin, and a rebinding name.
    browser = await chromium.launch({
      executablePath,
      args: [
        '--no-sandbox',
        '--disable-dev-shm-usage',
        '--disable-gpu',
        `--host-resolver-rules=MAP ${EVIL} 127.0.0.1`,
      ],
    })
    const index = (await d.request({ path: '/web/', noAuth: true })).text()
    script = /src="(app-[A-Z0-9]+\.js)"/.exec(index)?.[1] ?? ''
    evil = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' })
      // Loads the daemon's own script as a module (a CORS request carrying this Origin), and
      // calls the API with a token, as a page that had stolen one would.
      res.end(`<!doctype html><script type="module" src="${d.url}/web/${script}"></script>
<script>
fetch('${d.url}/sessions', { headers: { authorization: 'Bearer ${d.token}' } })
  .then((r) => { document.title = 'read ' + r.status }, () => { document.title = 'refused' })
</script>`)
    })
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r))
    evilPort = (evil.address() as AddressInfo).port
  })
  after(async () => {
    await browser?.close()
    evil?.close()
    await d?.stop()
  })

  it('serves the page under /web/ with its CSP, no token needed, and the API still needs one', async () => {
    const page = await d.request({ path: '/web/', noAuth: true, headers: { 'accept-encoding': 'br' } })
    assert.equal(page.status, 200)
    assert.equal(page.headers['content-security-policy'], WEB_CSP)
    assert.equal(
      WEB_CSP,
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    )
    assert.equal(page.headers['x-content-type-options'], 'nosniff')
    assert.equal(page.headers['referrer-policy'], 'no-referrer')
    assert.equal(page.headers['cache-control'], 'no-cache')
    assert.equal(page.headers['set-cookie'], undefined)
    assert.ok(script, 'index.html names the hashed script')
    const js = await d.request({
      path: `/web/${script}`,
      noAuth: true,
      headers: { 'accept-encoding': 'gzip' },
    })
    assert.equal(js.status, 200)
    assert.equal(js.headers['content-encoding'], 'gzip')
    assert.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable')
    assert.equal(js.headers['content-type'], 'text/javascript; charset=utf-8')
    assert.equal((await d.request({ path: '/web', noAuth: true })).headers.location, '/web/')
    assert.equal((await d.request({ path: '/web/nothing.js', noAuth: true })).json().code, 'not_found')
    assert.equal((await d.request({ path: `/web/${script}.gz`, noAuth: true })).status, 404)
    // A dot segment leaves /web/ as the URL is read: it names an API path, which needs the token.
    assert.equal((await d.request({ path: '/web/%2e%2e/token', noAuth: true })).json().code, 'unauthorized')
    assert.equal(
      (await d.request({ method: 'POST', path: '/web/', noAuth: true })).json().code,
      'method_not_allowed',
    )
    assert.equal((await d.request({ path: '/sessions', noAuth: true })).json().code, 'unauthorized')
    // The guards of every request hold for the page too.
    const foreign = await d.request({ path: '/web/', noAuth: true, headers: { origin: 'http://evil.test' } })
    assert.equal(foreign.json().code, 'origin_not_allowed')
    const rebound = await d.request({ path: '/web/', noAuth: true, headers: { host: `${EVIL}:${d.port}` } })
    assert.equal(rebound.json().code, 'host_not_allowed')
  })

  it('takes the token from the fragment, drops it from the address, keeps no cookie, and lists sessions', async () => {
    const id = await createSession(d)
    const w = await openPage(browser, webUrl(d.url, d.token))
    try {
      await w.page.waitForSelector(`.session-row[data-id="${id}"]`)
      assert.equal(w.page.url(), `${d.url}/web/#/`)
      assert.equal(await w.page.evaluate('document.cookie'), '')
      assert.deepEqual(await w.context.cookies(), [])
      assert.equal(await w.page.evaluate("sessionStorage.getItem('hearth.token')"), d.token)
      // A reload of the tab still has it; the log never saw it.
      await w.page.reload()
      await w.page.waitForSelector(`.session-row[data-id="${id}"]`)
      assert.equal(logText(d.home).includes(d.token), false)
      assert.deepEqual(w.errors, [])
      await screenshot(w.page, 'first-load')
    } finally {
      await w.close()
    }
  })

  it('hearth web prints the address with the token in its fragment under HEARTH_NO_BROWSER', async () => {
    const id = await createSession(d)
    const plain = await runCli(['--home', d.home, 'web'], { HEARTH_NO_BROWSER: '1' })
    assert.deepEqual(plain, { code: 0, stdout: `${d.url}/web/#token=${d.token}\n`, stderr: '' })
    const one = await runCli(['--home', d.home, 'web', id], { HEARTH_NO_BROWSER: '1' })
    assert.equal(one.stdout, `${d.url}/web/#token=${d.token}&route=%2Fs%2F${id}\n`)
    // The page opens on that session, and the address keeps only the route.
    const w = await openPage(browser, one.stdout.trim())
    try {
      await w.page.waitForSelector('.session-screen[data-link="live"]')
      assert.equal(w.page.url(), `${d.url}/web/#/s/${id}`)
    } finally {
      await w.close()
    }
  })

  it('without a token the page says how to get one, and a pasted token opens it', async () => {
    const w = await openPage(browser, `${d.url}/web/`)
    try {
      await w.page.waitForSelector('.token-screen')
      assert.match((await w.page.textContent('.token-screen')) ?? '', /hearth web/)
      await screenshot(w.page, 'token-needed')
      await w.page.fill('input[aria-label="daemon token"]', d.token)
      await w.page.click('.token-screen button')
      await w.page.waitForSelector('.sessions-screen[data-link="live"]')
      assert.equal(w.page.url(), `${d.url}/web/`)
    } finally {
      await w.close()
    }
  })

  it('a token the daemon refuses is forgotten and asked for again', async () => {
    const w = await openPage(browser, webUrl(d.url, 'A'.repeat(43)))
    try {
      await w.page.waitForSelector('.token-screen')
      assert.match((await w.page.textContent('.token-screen h2')) ?? '', /refused/)
      assert.equal(await w.page.evaluate("sessionStorage.getItem('hearth.token')"), null)
    } finally {
      await w.close()
    }
  })

  it('another origin gets neither the files nor the API, and a rebinding name gets nothing', async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    const w = { page, close: () => context.close() }
    // What the daemon answered, read below the browser's CORS check (which hides it from the page).
    const cdp = await context.newCDPSession(page)
    await cdp.send('Network.enable')
    const urls = new Map<string, string>()
    const statuses = new Map<string, number>()
    cdp.on('Network.requestWillBeSent', (e) => urls.set(e.requestId, e.request.url))
    // (this event may come before or after the request's own)
    cdp.on('Network.responseReceivedExtraInfo', (e) => statuses.set(e.requestId, e.statusCode))
    const answered = () =>
      [...statuses]
        .map(([id, status]) => ({ url: urls.get(id) ?? '', status }))
        .filter((a) => a.url.endsWith(script))
    try {
      await page.goto(`http://${EVIL}:${evilPort}/`)
      await w.page.waitForFunction(() => (globalThis as any).document.title !== '')
      assert.equal(await w.page.title(), 'refused')
      await until('the answer to the script request', () => answered().length > 0, 10_000, 20)
      assert.deepEqual(
        answered(),
        [{ url: `${d.url}/web/${script}`, status: 403 }],
        'the module script request carried the other origin and was refused',
      )
      const rebinding = await w.page.goto(`http://${EVIL}:${d.port}/web/`)
      assert.equal(rebinding?.status(), 403)
      assert.match((await w.page.textContent('body')) ?? '', /host_not_allowed/)
    } finally {
      await w.close()
    }
  })
})
