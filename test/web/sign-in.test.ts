// The sign-in screen in Chromium against a real daemon whose chatgpt provider signs in at
// the fake ChatGPT issuer: the manual flow started from the page, authorized at the fake,
// its response pasted back (PATCH with the login's ETag) and the account then listed with its
// state, with the profiles that use its pool; a browser flow opened in a new tab and cancelled from the page; a device flow (the
// fake GitHub's copilot sign-in) showing its code and address until GitHub approves it.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser } from 'playwright-core'
import { FakeChatgptBackend } from '../fakes/chatgpt-backend.ts'
import { FakeGitHub } from '../fakes/github.ts'
import { startChatgptDaemon } from '../helpers/chatgpt-signin.ts'
import type { TestDaemon } from '../helpers/daemon.ts'
import { change } from '../settings/helpers.ts'
import { launchBrowser, openPage, screenshot, webUrl } from './browser.ts'

describe('the web client: sign-in', () => {
  let fake: FakeChatgptBackend
  let gh: FakeGitHub
  let d: TestDaemon
  let browser: Browser

  before(async () => {
    fake = await FakeChatgptBackend.start()
    gh = await FakeGitHub.start()
    gh.interval = 0.05
    d = await startChatgptDaemon(fake, { env: gh.daemonEnv() })
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await d?.stop()
    await fake?.close()
    await gh?.close()
  })

  it('signs in with the manual flow: the address to open, the pasted response, the account listed', async () => {
    const w = await openPage(browser, webUrl(d.url, d.token, '/sign-in'))
    try {
      await w.page.waitForSelector('.provider[data-provider="chatgpt"]')
      await screenshot(w.page, 'sign-in')
      await w.page.click('.provider[data-provider="chatgpt"] button[data-flow="manual"]')
      const panel = '.login-panel[data-state="waiting"]'
      await w.page.waitForSelector(`${panel} .login-url`)
      const url = new URL((await w.page.getAttribute(`${panel} .login-url`, 'href')) as string)
      assert.equal(url.origin, new URL(fake.url).origin, 'the link leads to the provider')
      const code = fake.authorize(
        { accountId: 'ws-web', userId: 'u-web', email: 'web@example.test' },
        url.searchParams.get('code_challenge') as string,
        url.searchParams.get('redirect_uri') as string,
      )
      await w.page.fill(`${panel} input[name="response"]`, `${code}#${url.searchParams.get('state')}`)
      await screenshot(w.page, 'sign-in-manual')
      await w.page.click(`${panel} button[type="submit"]`)
      await w.page.waitForSelector('.login-panel[data-state="complete"]')
      await w.page.waitForSelector('.pool[data-provider="chatgpt"] .account')
      const account = await w.page.textContent('.pool[data-provider="chatgpt"] .account')
      assert.match(account ?? '', /web@example\.test/)
      assert.match(account ?? '', /refreshable/)
      await screenshot(w.page, 'sign-in-complete')
      const auth = (await d.request({ path: '/auth' })).json()
      assert.equal(auth.accounts.length, 1, 'the daemon saved the account')
      assert.deepEqual(w.errors, [])
    } finally {
      await w.close()
    }
  })

  it('names the profiles that rotate through a pool, and the one an account is bound to', async () => {
    const auth = (await d.request({ path: '/auth' })).json()
    const account = auth.accounts.find((a: any) => a.provider === 'chatgpt')
    assert.ok(account, 'the account the case before saved')
    await change(d, 'providers', {
      profiles: {
        pinned: {
          extension: 'chatgpt',
          endpoint: fake.backendUrl,
          model: 'gpt-5.1-codex',
          account_id: account.id,
        },
      },
    })
    const w = await openPage(browser, webUrl(d.url, d.token, '/sign-in'))
    try {
      const pool = '.pool[data-provider="chatgpt"]'
      await w.page.waitForSelector(`${pool} .account .bound`)
      assert.equal(await w.page.textContent(`${pool} .pool-use`), 'Profile “sub” rotates through this pool.')
      assert.match((await w.page.textContent(`${pool} .account .bound`)) ?? '', /bound to “pinned”/)
      // The bound account is kept: the daemon's 409 is said on the page.
      await w.page.click(`${pool} .account .link-button`)
      await w.page.waitForSelector('.sign-in-screen .error-text')
      assert.match((await w.page.textContent('.sign-in-screen .error-text')) ?? '', /pinned|in use/i)
      assert.equal((await d.request({ path: '/auth' })).json().accounts.length, 1)
      await screenshot(w.page, 'sign-in-pools')
    } finally {
      await w.close()
      await change(d, 'providers', { profiles: { pinned: null } })
    }
  })

  it('opens the browser flow in a new tab, and cancels it from the page', async () => {
    const w = await openPage(browser, webUrl(d.url, d.token, '/sign-in'), {
      width: 420,
      height: 800,
      colorScheme: 'dark',
    })
    try {
      await w.page.waitForSelector('.provider[data-provider="chatgpt"]')
      const tab = w.context.waitForEvent('page')
      await w.page.click('.provider[data-provider="chatgpt"] button[data-flow="browser"]')
      const opened = await tab
      await opened.waitForURL((u) => u.origin === new URL(fake.url).origin)
      const id = await w.page.getAttribute('.login-panel[data-state="waiting"]', 'data-login')
      await screenshot(w.page, 'sign-in-browser-narrow-dark')
      await w.page.click('.login-panel[data-state="waiting"] .cancel')
      await w.page.waitForSelector(`.login-panel[data-login="${id}"][data-state="cancelled"]`)
      const login = (await d.request({ path: `/auth/logins/${id}` })).json()
      assert.equal(login.state, 'cancelled')
    } finally {
      await w.close()
    }
  })

  it('shows a device code and where to enter it, until the provider approves it', async () => {
    const w = await openPage(browser, webUrl(d.url, d.token, '/sign-in'))
    try {
      await w.page.waitForSelector('.provider[data-provider="copilot"]')
      await w.page.click('.provider[data-provider="copilot"] button[data-flow="device"]')
      const panel = '.login-panel[data-state="waiting"]'
      await w.page.waitForSelector(`${panel} .user-code`)
      const code = (await w.page.textContent(`${panel} .user-code`)) as string
      assert.deepEqual(gh.userCodes, [code], 'the code the provider issued')
      assert.equal(
        new URL((await w.page.getAttribute(`${panel} .login-url`, 'href')) as string).origin,
        new URL(gh.url).origin,
      )
      await screenshot(w.page, 'sign-in-device')
      gh.approve(code, { id: 583231, login: 'octocat', copilot: true })
      await w.page.waitForSelector('.login-panel[data-state="complete"]')
      await w.page.waitForSelector('.pool[data-provider="copilot"] .account')
      assert.deepEqual(w.errors, [])
    } finally {
      await w.close()
    }
  })
})
