// The login screen in a real terminal: tmux runs `hearth` against a real daemon whose
// profile `sub` is the fake ChatGPT backend, which is also the OAuth issuer. A fake browser
// command (`xdg-open` first on PATH) records the address it is given. The sign-ins finish
// through a pasted `code#state` that the fake issuer minted for the login's PKCE challenge.
import assert from 'node:assert/strict'
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, beforeEach, describe, it } from 'node:test'
import { FakeChatgptBackend } from '../fakes/chatgpt-backend.ts'
import { startChatgptDaemon } from '../helpers/chatgpt-signin.ts'
import { BIN, type TestDaemon, tempHome } from '../helpers/daemon.ts'
import { Tmux } from '../helpers/tmux.ts'
import { message, putInput } from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'

const ready = (screen: string) => /idle · /.test(screen) && screen.includes('──────')

describe('the login screen in tmux', () => {
  let fake: FakeChatgptBackend
  let d: TestDaemon
  let bin: string
  let opened: string
  const terminals: Tmux[] = []
  const open = (env: Record<string, string> = {}, args: string[] = []) => {
    // PATH through env(1): the shell tmux starts the command with may set its own.
    const vars = Object.entries({ PATH: `${bin}:${process.env.PATH}`, HEARTH_NO_BROWSER: '', ...env })
    const t = Tmux.start(
      ['env', ...vars.map(([k, v]) => `${k}=${v}`), process.execPath, BIN, '--home', d.home, ...args],
      {
        columns: 120,
        rows: 40,
        cwd: d.home,
      },
    )
    terminals.push(t)
    return t
  }
  const auth = async () => (await d.request({ path: '/auth' })).json()
  /** The address the fake browser was given, once it was. */
  const browserUrl = async (t: Tmux): Promise<URL> => {
    const deadline = Date.now() + 15_000
    while (!existsSync(opened) || readFileSync(opened, 'utf8').trim() === '') {
      if (Date.now() > deadline) throw new Error(`the browser was never opened; the screen:\n${t.screen()}`)
      await new Promise((r) => setTimeout(r, 50))
    }
    return new URL(readFileSync(opened, 'utf8').trim().split('\n')[0])
  }
  /** Signs `email` in at the fake issuer for the login of `url`: the `code#state` to paste. */
  const authorize = (url: URL, email: string) => {
    const code = fake.authorize(
      { accountId: `ws-${email}`, userId: `u-${email}`, email },
      url.searchParams.get('code_challenge') as string,
      url.searchParams.get('redirect_uri') as string,
    )
    return `${code}#${url.searchParams.get('state')}`
  }

  before(async () => {
    fake = await FakeChatgptBackend.start()
    d = await startChatgptDaemon(fake)
    bin = join(tempHome('hearth-browser-'), 'bin')
    mkdirSync(bin, { recursive: true })
    opened = join(bin, 'opened')
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened}'\n`)
    chmodSync(join(bin, 'xdg-open'), 0o755)
  })
  beforeEach(async () => {
    rmSync(opened, { force: true })
    // Every test starts signed out.
    for (const a of (await auth()).accounts)
      await d.request({ method: 'DELETE', path: `/auth/accounts/${encodeURIComponent(a.id)}` })
  })
  after(async () => {
    for (const t of terminals) t.kill()
    await d.stop()
    await fake.close()
  })

  it('opens by itself when a turn fails with run /login, signs in through the browser and a pasted code, and the turn then goes through', async () => {
    const t = open()
    await t.waitFor(ready, 'the prompt')
    t.type('hello there')
    t.keys('Enter')
    let screen = await t.waitFor(
      (x) => x.includes('Sign in') && x.includes('ChatGPT (chatgpt)'),
      'the login screen',
    )
    assert.match(screen, /the turn failed: .*run \/login/)
    assert.match(screen, /signed out/)
    assert.match(screen, /Plus, Pro or Business subscription/, 'the provider detail')
    assert.equal(existsSync(opened), false, 'nothing opened before Enter')

    t.keys('Enter')
    const url = await browserUrl(t)
    assert.equal(url.origin, fake.url, 'the browser got the authorize address')
    screen = await t.waitFor((x) => x.includes('opened in the browser'), 'the sign-in under way')
    assert.match(screen, /state: waiting/)
    t.paste(authorize(url, 'tui@example.test'))
    t.keys('Enter')
    screen = await t.waitFor((x) => x.includes('signed in as tui@example.test'), 'the result')
    const after = await auth()
    assert.equal(
      after.providers.find((p: { extension: string }) => p.extension === 'chatgpt').status,
      'signed in',
    )
    assert.deepEqual(
      after.accounts.map((a: { email: string }) => a.email),
      ['tui@example.test'],
    )

    t.keys('Enter')
    await t.waitFor((x) => ready(x) && x.includes('signed in; send the message again'), 'back in the chat')
    fake.enqueue({ text: ['welcome ', 'back'] })
    t.type('hello again')
    t.keys('Enter')
    await t.waitFor((x) => x.includes('welcome back'), 'the answer after signing in')
  })

  it('a turn another client sent failing with run /login leaves the chat as it is; one sent from the chat opens the screen', async () => {
    const id = await createSession(d)
    const t = open({}, ['chat', id])
    await t.waitFor(ready, 'the prompt')
    const sent = await putInput(d, id, message('from another client'))
    assert.equal(sent.status, 202, sent.text())
    await t.waitFor(
      (x) => x.includes('from another client') && /signed_out: .*run \/login/.test(x),
      'the failure',
    )
    // Keys typed after the failure was drawn are drawn in the chat's prompt.
    t.type('from this chat')
    const typed = await t.waitFor((x) => x.includes('from this chat'), 'the typed message')
    assert.doesNotMatch(typed, /Sign in|ChatGPT \(chatgpt\)/, 'no login screen for a turn of another client')
    t.keys('Enter')
    await t.waitFor(
      (x) => x.includes('ChatGPT (chatgpt)') && x.includes('the turn failed'),
      'the login screen',
    )
  })

  it('honours HEARTH_NO_BROWSER: /login chatgpt (completed) shows the whole address and opens nothing; Esc cancels the login', async () => {
    const t = open({ HEARTH_NO_BROWSER: '1' })
    await t.waitFor(ready, 'the prompt')
    t.type('/login cha')
    await t.waitFor((x) => /→ chatgpt/.test(x), 'the provider offered')
    t.keys('Tab')
    await t.waitFor((x) => /^ \/login chatgpt\s*$/m.test(x), 'the completed provider')
    t.keys('Enter')
    const screen = await t.waitFor((x) => x.includes('HEARTH_NO_BROWSER is set'), 'the sign-in under way')
    // The address is drawn whole, cut into lines of the terminal's width, at any width.
    const addressOn = (shown: string) => {
      const lines = shown.split('\n')
      const first = lines.findIndex((l) => l.startsWith(fake.url))
      assert.ok(first >= 0, shown)
      let text = ''
      for (let i = first; i < lines.length && lines[i].trim() !== ''; i++) text += lines[i].trimEnd()
      return new URL(text)
    }
    const url = addressOn(screen)
    assert.ok(url.searchParams.get('code_challenge'), 'the address holds its challenge')
    t.resize(37, 40)
    // tmux cuts the old lines to the new width at once; the client's own narrow drawing
    // is the one whose lines join into an address again.
    const joinsUp = (x: string) => {
      try {
        return addressOn(x).href === url.href
      } catch {
        return false
      }
    }
    const narrow = await t.waitFor(
      (x) => x.split('\n').every((l) => [...l].length <= 37) && x.includes(fake.url) && joinsUp(x),
      'the narrow screen',
    )
    assert.equal(addressOn(narrow).href, url.href)
    assert.equal((await auth()).logins.length, 1, 'one login under way')
    // A response of another sign-in is refused with the daemon's reason; the login waits on.
    t.paste('ac_other#not-this-state')
    t.keys('Enter')
    await t.waitFor(
      (x) => x.replace(/\s+/g, ' ').includes('belongs to another sign-in') && /state: waiting/.test(x),
      'the refusal',
    )

    t.keys('Escape')
    await t.waitFor((x) => ready(x) && !x.includes('Sign in'), 'back in the chat')
    const deadline = Date.now() + 30_000
    while ((await auth()).logins.length > 0) {
      assert.ok(Date.now() < deadline, 'the login was cancelled')
      await new Promise((r) => setTimeout(r, 50))
    }
    // Checked last, long after the sign-in started: no browser was started for it.
    assert.equal(existsSync(opened), false, 'no browser was started')
  })

  it('a signed-out profile chosen in the model picker signs in first (the browser redirect completes it), then the picker goes on to its models', async () => {
    const t = open()
    await t.waitFor(ready, 'the prompt')
    t.type('/model')
    t.keys('Enter')
    await t.waitFor((x) => /sub {2}chatgpt {2}signed out/.test(x), 'the profile list')
    // The session's profile (sub) is chosen at first.
    t.keys('Enter')
    const url = await browserUrl(t)
    await t.waitFor((x) => x.includes('Sign in to ChatGPT'), 'the login screen')
    // The browser's redirect reaches the daemon's listener: nothing is pasted.
    const [code, state] = authorize(url, 'picker@example.test').split('#')
    const callback = new URL(url.searchParams.get('redirect_uri') as string)
    callback.hostname = '127.0.0.1'
    callback.search = new URLSearchParams({ code, state }).toString()
    assert.equal((await fetch(callback)).status, 200)
    await t.waitFor((x) => x.includes('signed in as picker@example.test'), 'the result')
    t.keys('Enter')
    await t.waitFor((x) => x.includes('Model for sub'), 'the picker at its model step')
  })
})
