// The quota screen and the status line's quota in a real terminal against the real daemon:
// tmux runs `hearth` on a home whose state.db was seeded with readings before the daemon
// started (test/helpers/quota-seed.ts), the default profile `sub` being the fake ChatGPT
// backend with a@example.test signed in. The status line shows that account's reading (not
// b@example.test's), stale marked; /quota shows every account with its trails; Esc closes it.
// Without an account /quota says how to sign in; with polling off, that it is off.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { FakeChatgptBackend } from '../fakes/chatgpt-backend.ts'
import { signInChatgpt } from '../helpers/chatgpt-signin.ts'
import { BIN, type TestDaemon } from '../helpers/daemon.ts'
import { quotaFixture, startQuotaDaemon } from '../helpers/quota-seed.ts'
import { Tmux } from '../helpers/tmux.ts'

const ready = (screen: string) => /idle · /.test(screen) && screen.includes('──────')

describe('the quota screen in tmux against the real daemon', () => {
  let chatgpt: FakeChatgptBackend
  let seeded: TestDaemon
  let empty: TestDaemon
  let off: TestDaemon
  const terminals: Tmux[] = []
  const open = (d: TestDaemon) => {
    const t = Tmux.start(['env', 'NO_COLOR=', process.execPath, BIN, '--home', d.home], {
      columns: 110,
      rows: 50,
      cwd: d.home,
    })
    terminals.push(t)
    return t
  }

  before(async () => {
    chatgpt = await FakeChatgptBackend.start()
    seeded = await startQuotaDaemon({ chatgpt, readings: quotaFixture(Date.now()) })
    await signInChatgpt(seeded, chatgpt, { accountId: 'ws-a', userId: 'u-a', email: 'a@example.test' })
    empty = await startQuotaDaemon({ chatgpt })
    off = await startQuotaDaemon({ chatgpt, polling: false })
  })
  after(async () => {
    for (const t of terminals) t.kill()
    await seeded.stop()
    await empty.stop()
    await off.stop()
    await chatgpt.close()
  })

  it("the status line shows the signed-in account's readings, stale marked; /quota shows every account with its trails; Esc closes it", async () => {
    const t = open(seeded)
    const status = await t.waitFor((x) => ready(x) && x.includes('quota 5h'), 'the quota in the status line')
    // Shortest window first, whatever order the daemon gives.
    assert.match(status, /quota 5h 42%, 7d 60% \(stale\)/, "a@example.test's limits, the weekly one stale")
    t.type('/quota')
    t.keys('Enter')
    const screen = await t.waitFor(
      (x) => x.includes('capped at 1000 readings') && !x.includes('reading the trail'),
      'the quota screen with its trails',
    )
    assert.match(screen, /codex · a@example\.test {2}\(plus\)/)
    assert.match(screen, /session {2}42% {2}5h {2}resets in (1h 59m|2h) {2}read 1m ago\n/)
    assert.match(screen, /last 1d · 48 readings/)
    assert.match(screen, /weekly {2}60% {2}7d {2}resets in (2d 23h|3d) {2}read 40m ago {2}stale/)
    assert.match(screen, /last 6d 23h \(capped at 1000 readings; window 7d\) · 1000 readings/)
    assert.match(screen, /[▁▂▃▄▅▆▇█]{20,}/, 'a chart')
    assert.match(
      screen,
      /codex · b@example\.test[\s\S]*session {2}unknown {2}5h {2}reset passed {2}read 2h ago {2}stale/,
    )
    assert.match(screen, /claude · c@example\.test\n {2}poll failed: token expired\n/)
    t.keys('Escape')
    const back = await t.waitFor((x) => ready(x) && !x.includes('capped at'), 'back in the chat')
    assert.match(back, /quota 5h 42%/)
  })

  it('/quota without a signed-in account says how to sign in', async () => {
    const t = open(empty)
    const status = await t.waitFor(ready, 'the prompt')
    assert.doesNotMatch(status, /quota \d/)
    t.type('/quota')
    t.keys('Enter')
    const screen = await t.waitFor((x) => x.includes('no account is signed in'), 'the explanation')
    assert.match(screen, /Sign in with \/login \(chatgpt, claude or antigravity\)/)
    assert.match(screen, /API-key profile is polled when its host reports usage/)
    t.keys('Escape')
    await t.waitFor((x) => ready(x) && !x.includes('no account is signed in'), 'back in the chat')
  })

  it('/quota with polling off says so and how to turn it on', async () => {
    const t = open(off)
    await t.waitFor(ready, 'the prompt')
    t.type('/quota')
    t.keys('Enter')
    const screen = await t.waitFor((x) => x.includes('quota polling is off'), 'the explanation')
    assert.match(screen, /hearth config set extensions '\{"quota":\{"enabled":true\}\}'/)
  })
})
