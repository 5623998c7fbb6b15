// The quota screen and the status line's quota in a real terminal: tmux runs `hearth`
// against a daemon that records quota (test/fakes/quota-daemon.ts, in front of a real
// daemon whose profile `sub` is the fake ChatGPT backend with a signed-in seat), and against
// the real daemon, which records none yet.
import assert from 'node:assert/strict'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { FakeChatgptBackend } from '../fakes/chatgpt-backend.ts'
import { FakeQuotaDaemon, reading } from '../fakes/quota-daemon.ts'
import { signInChatgpt, startChatgptDaemon } from '../helpers/chatgpt-signin.ts'
import { BIN, type TestDaemon } from '../helpers/daemon.ts'
import { Tmux } from '../helpers/tmux.ts'

const MIN = 60_000
const ready = (screen: string) => /idle · /.test(screen) && screen.includes('──────')

describe('the quota screen in tmux', () => {
  let chatgpt: FakeChatgptBackend
  let d: TestDaemon
  let fake: FakeQuotaDaemon
  const terminals: Tmux[] = []
  const open = (home: string) => {
    const t = Tmux.start([process.execPath, BIN, '--home', home], { columns: 110, rows: 45, cwd: d.home })
    terminals.push(t)
    return t
  }

  before(async () => {
    chatgpt = await FakeChatgptBackend.start()
    // Its quota poller runs a usage core that is not there: it records nothing (the last test).
    d = await startChatgptDaemon(chatgpt, {
      env: { HEARTH_USAGE_CORE: join(tmpdir(), 'hearth-no-usage-core') },
    })
    await signInChatgpt(d, chatgpt, { accountId: 'ws-a', userId: 'u-a', email: 'a@example.test' })
    const now = Date.now()
    // The weekly limit every 5 minutes for 8 days: more than five pages of 200 reach.
    const weekly = Array.from({ length: 2304 }, (_, i) =>
      reading({
        observed: now - MIN - (2303 - i) * 5 * MIN,
        limit_id: 'secondary',
        limit_label: 'weekly',
        window_label: '7d',
        window_seconds: 604_800,
        used_percent: 20 + (i % 50),
        reset_at_ms: now + 3 * 86_400_000,
      }),
    )
    const session = Array.from({ length: 48 }, (_, i) =>
      reading({
        observed: now - MIN - (47 - i) * 30 * MIN,
        used_percent: i === 47 ? 42 : i,
        reset_at_ms: now + 2 * 3_600_000,
      }),
    )
    // Another account read two hours ago (stale), and a failed poll without limits.
    const old = reading({ observed: now - 120 * MIN, account: 'b@example.test', used_percent: 75 })
    const failed = reading({
      observed: now - 5 * MIN,
      provider: 'claude',
      account: 'c@example.test',
      limit_id: '',
      limit_label: null,
      used_percent: null,
      window_label: null,
      window_seconds: null,
      reset_at_ms: null,
      error: 'token expired',
    })
    const history = [...weekly, ...session, old, failed].sort((a, b) =>
      a.observed_at.localeCompare(b.observed_at),
    )
    fake = await FakeQuotaDaemon.start(d, [session.at(-1)!, weekly.at(-1)!, old, failed], history)
  })
  after(async () => {
    for (const t of terminals) t.kill()
    await fake.close()
    await d.stop()
    await chatgpt.close()
  })

  it('shows each account and limit with its latest reading and a trail chart; capped trails say their span; stale readings are marked', async () => {
    const t = open(fake.home)
    const status = await t.waitFor(
      (x) => ready(x) && x.includes('quota 5h 42%'),
      'the quota in the status line',
    )
    assert.match(status, /quota 5h 42%, 7d \d+%/)
    assert.doesNotMatch(status, /stale/)
    t.type('/quota')
    t.keys('Enter')
    const screen = await t.waitFor(
      (x) => x.includes('capped at 1000 readings') && !x.includes('reading the trail'),
      'the quota screen with its trails',
    )
    assert.match(screen, /codex · a@example\.test {2}\(plus\)/)
    assert.match(screen, /session {2}42% {2}5h {2}resets in 1h 59m|session {2}42% {2}5h {2}resets in 2h/)
    assert.match(screen, /last 1d · 48 readings/)
    assert.match(screen, /weekly {2}\d+% {2}7d {2}resets in 2d 23h|weekly {2}\d+% {2}7d {2}resets in 3d/)
    assert.match(screen, /last 3d 1[01]h \(capped at 1000 readings; window 7d\) · 1000 readings/)
    assert.match(screen, /[▁▂▃▄▅▆▇█]{20,}/, 'a chart')
    assert.match(screen, /codex · b@example\.test[\s\S]*session {2}75%.*read 2h ago {2}stale/)
    assert.match(screen, /claude · c@example\.test[\s\S]*poll failed: token expired/)
    assert.equal(fake.historyQueries('secondary').length, 5, 'at most five pages')
    assert.equal(fake.historyQueries('secondary')[0].get('limit'), '200')
    // Narrow: every line is cut to the width, the charts too.
    t.resize(24, 45)
    const narrow = await t.waitFor(
      (x) => /^codex · a@example\.test/m.test(x) && /capped/.test(x),
      'the narrow screen',
    )
    assert.ok(
      narrow.split('\n').every((l) => [...l].length <= 24),
      narrow,
    )
    t.keys('Escape')
    await t.waitFor((x) => ready(x) && !x.includes('capped at'), 'back in the chat')
  })

  it('with a daemon that records no quota: the screen says there are no readings and the status line shows none', async () => {
    const t = open(d.home)
    const status = await t.waitFor(ready, 'the prompt')
    t.type('/quota')
    t.keys('Enter')
    await t.waitFor((x) => x.includes('No quota readings'), 'the empty quota screen')
    assert.doesNotMatch(status, /quota/)
  })
})
