// The settings screen in Chromium against a real daemon: a group edited while another client
// changes it (the save meets 412, "Reload and retry" sends the same edits under the fresh
// ETag, and both changes hold), a secret shown only as saved and replaced from the page, the
// storage report, and a profile added as JSON (a bad one refused with the daemon's words)
// and removed.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser } from 'playwright-core'
import { type Setup, startWithUpstream } from '../inputs/helpers.ts'
import { change, fileJson, readGroup } from '../settings/helpers.ts'
import { launchBrowser, openPage, screenshot, webUrl } from './browser.ts'

const SECRET = 'sk-web-test-secret-0123456789'

describe('the web client: settings', () => {
  let s: Setup
  let browser: Browser

  before(async () => {
    s = await startWithUpstream()
    await change(s.d, 'providers', { profiles: { fake: { api_key: SECRET } } })
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await s?.d.stop()
    await s?.upstream.close()
  })

  it('a save that meets a stale ETag keeps the edits, reloads and retries: both writes hold', async () => {
    const w = await openPage(browser, webUrl(s.d.url, s.d.token, '/settings'))
    try {
      await w.page.waitForSelector('.settings-screen[data-loaded="true"]')
      // Keyboard first: the ui tab chosen with the keyboard (its button focused, Enter).
      await w.page.focus('[data-tab="ui"]')
      await w.page.keyboard.press('Enter')
      const form = '.settings-group[data-group="ui"]'
      const reasoning = (await readGroup(s.d, 'ui')).settings.show_reasoning
      await w.page.fill(`${form} [data-field="theme"] input`, 'solarized')
      await w.page.click(`${form} [data-field="show_reasoning"] input`)
      // Another client changes the group after the page read it.
      await change(s.d, 'ui', { dismissed_notices: ['elsewhere'] })
      await w.page.click(`${form} button[type="submit"]`)
      await w.page.waitForSelector(`${form}[data-state="stale"] .reload-retry`)
      assert.equal((await readGroup(s.d, 'ui')).settings.theme, null, 'nothing written over the other change')
      await screenshot(w.page, 'settings-stale-etag')
      await w.page.click(`${form} .reload-retry`)
      await w.page.waitForSelector(`${form}[data-state="saved"]`)
      const ui = (await readGroup(s.d, 'ui')).settings
      assert.equal(ui.theme, 'solarized')
      assert.equal(ui.show_reasoning, !reasoning)
      assert.deepEqual(ui.dismissed_notices, ['elsewhere'])
      assert.equal(await w.page.inputValue(`${form} [data-field="theme"] input`), 'solarized')
      // The browser logs the 412 it was meant to meet; nothing else.
      assert.deepEqual(
        w.errors.filter((e) => !/status of 412/.test(e)),
        [],
      )
    } finally {
      await w.close()
    }
  })

  it('shows a secret only as saved, replaces it from the page, and shows the storage report', async () => {
    const w = await openPage(browser, webUrl(s.d.url, s.d.token, '/settings'), {
      width: 420,
      height: 900,
      colorScheme: 'dark',
    })
    try {
      await w.page.waitForSelector('.settings-group[data-group="providers"]')
      const field = '[data-field="profiles.fake.api_key"]'
      assert.match((await w.page.textContent(field)) ?? '', /saved/)
      assert.ok(!(await w.page.content()).includes(SECRET), 'the secret is never on the page')
      await w.page.click(`${field} button:text("Replace")`)
      await w.page.fill(`${field} input[type="password"]`, 'sk-replaced-from-the-page')
      await w.page.click('.settings-group[data-group="providers"] button[type="submit"]')
      await w.page.waitForSelector('.settings-group[data-group="providers"][data-state="saved"]')
      assert.equal(fileJson(s.d.home, 'creds.json').providers.fake.apiKey, 'sk-replaced-from-the-page')
      assert.match((await w.page.textContent(field)) ?? '', /saved/)
      await w.page.waitForSelector('.storage-report[data-loaded="true"]')
      await screenshot(w.page, 'settings-narrow-dark')
      await w.page.locator('.storage-report').scrollIntoViewIfNeeded()
      await screenshot(w.page, 'settings-storage')
    } finally {
      await w.close()
    }
  })

  it('adds a profile as JSON, shows the daemon’s word on a bad one, and removes a profile', async () => {
    const w = await openPage(browser, webUrl(s.d.url, s.d.token, '/settings'))
    try {
      const form = '.settings-group[data-group="providers"]'
      await w.page.waitForSelector(form)
      const add = `${form} [data-add="profiles"]`
      // A value the daemon refuses: its problem is shown, and nothing is written.
      await w.page.fill(`${add} input`, 'broken')
      await w.page.fill(`${add} textarea`, '{"extension": "no-such-extension"}')
      await w.page.click(`${add} button`)
      await w.page.waitForSelector(`${form} [data-field="profiles.broken"] .badge`)
      await w.page.click(`${form} button[type="submit"]`)
      await w.page.waitForSelector(`${form}[data-state="failed"]`)
      assert.match((await w.page.textContent(`${form} .form-actions .error-text`)) ?? '', /extension/)
      assert.equal((await readGroup(s.d, 'providers')).settings.profiles.broken, undefined)
      await w.page.click(`${form} [data-field="profiles.broken"] button`)
      // Text that is not JSON is said at once, before anything is sent.
      await w.page.fill(`${add} input`, 'spare')
      await w.page.fill(`${add} textarea`, '{"extension": ')
      await w.page.click(`${add} button`)
      assert.match((await w.page.textContent(`${add} .error-text`)) ?? '', /Not JSON/)
      await w.page.fill(
        `${add} textarea`,
        `{"extension": "openai-compatible", "endpoint": "${s.upstream.url}", "model": "spare-model"}`,
      )
      await w.page.click(`${add} button`)
      await w.page.click(`${form} button[type="submit"]`)
      await w.page.waitForSelector(`${form}[data-state="saved"]`)
      const spare = (await readGroup(s.d, 'providers')).settings.profiles.spare
      assert.equal(spare.model, 'spare-model')
      // The added profile is now a field set of its own, with Remove.
      await w.page.waitForSelector(`${form} [data-set="profiles.spare"] .remove-entry`)
      await screenshot(w.page, 'settings-profile-added')
      await w.page.click(`${form} [data-set="profiles.spare"] .remove-entry`)
      await w.page.click(`${form} button[type="submit"]`)
      await w.page.waitForFunction(
        (f) => !(globalThis as any).document.querySelector(`${f} [data-set="profiles.spare"]`),
        form,
      )
      assert.equal((await readGroup(s.d, 'providers')).settings.profiles.spare, undefined)
      assert.deepEqual(
        w.errors.filter((e) => !/status of 400/.test(e)),
        [],
      )
    } finally {
      await w.close()
    }
  })
})
