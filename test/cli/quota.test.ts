// `hearth quota` through bin/hearth.mjs against the real daemon, whose state.db was seeded
// with readings before it started (test/helpers/quota-seed.ts): the readings per provider and
// account with their trail charts, stale and unknown readings, failed polls, --json, and
// without readings each of the three reasons. At a real terminal (tmux): colour, NO_COLOR
// and a narrow terminal.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { QuotaReading } from '../../src/schemas/server.ts'
import { FakeChatgptBackend } from '../fakes/chatgpt-backend.ts'
import { signInChatgpt } from '../helpers/chatgpt-signin.ts'
import { BIN, runCli, type TestDaemon } from '../helpers/daemon.ts'
import { quotaFixture, startQuotaDaemon } from '../helpers/quota-seed.ts'
import { Tmux } from '../helpers/tmux.ts'

const MIN = 60_000
const HOUR = 60 * MIN
const ESC = String.fromCharCode(27)

/** `2026-11-28 14:32` in UTC, as the command prints it with TZ=UTC. */
const utc = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ')

describe('hearth quota', () => {
  let seeded: TestDaemon
  let now: number
  const terminals: Tmux[] = []
  const quota = (d: TestDaemon, ...args: string[]) =>
    runCli(['quota', ...args, '--home', d.home], { HEARTH_HOME: '', TZ: 'UTC', COLUMNS: '110' })
  const inTmux = (d: TestDaemon, columns: number, env: Record<string, string> = {}) => {
    const vars = Object.entries({ TZ: 'UTC', NO_COLOR: '', ...env }).map(([k, v]) => `${k}=${v}`)
    const t = Tmux.start(['env', ...vars, process.execPath, BIN, 'quota', '--home', d.home], {
      columns,
      rows: 80,
    })
    terminals.push(t)
    return t
  }

  before(async () => {
    now = Date.now()
    seeded = await startQuotaDaemon({ readings: quotaFixture(now) })
  })
  after(async () => {
    for (const t of terminals) t.kill()
    await seeded.stop()
  })

  it('prints each account and limit with its percentage, window, reset and plan, and each trail as a chart with its span', async () => {
    const r = await quota(seeded)
    assert.equal(r.code, 0, r.stderr)
    const out = r.stdout
    assert.ok(!out.includes(ESC), 'no escape sequences when the output is not a terminal')
    assert.match(out, /^codex · a@example\.test {2}\(plus\)$/m)
    const reset = utc(now + 2 * HOUR)
    assert.match(
      out,
      new RegExp(`^ {2}session {2}42% {2}5h {2}resets in (1h 59m|2h) {2}\\(${reset}\\) {2}read 1m ago$`, 'm'),
    )
    assert.match(out, /^ {4}100% ▕[ ▁▂▃▄▅▆▇█]+$/m, 'the top row of a chart, with its scale')
    assert.match(out, /^ {6}0% ▕[ ▁▂▃▄▅▆▇█]*[▁▂▃▄▅▆▇█]{20,}/m, 'the bottom row holds the readings')
    assert.match(out, /^ {10}last 1d · 48 readings$/m)
    // The weekly limit: more readings in its window than five pages hold.
    assert.match(
      out,
      /^ {2}weekly {2}60% {2}7d {2}resets in (2d 23h|3d) {2}\(.+\) {2}read 40m ago {2}stale$/m,
      'older than 30 minutes: stale',
    )
    assert.match(out, /^ {10}last 6d 23h \(capped at 1000 readings; window 7d\) · 1000 readings$/m)
    // Unknown is said, never 0; a passed reset is stale.
    assert.match(
      out,
      /^codex · b@example\.test {2}\(plus\)\n {2}session {2}unknown {2}5h {2}reset passed .* {2}read 2h ago {2}stale$/m,
    )
    assert.doesNotMatch(out, /session {2}0%/)
    // A failed poll with its error.
    assert.match(out, /^claude · c@example\.test\n {2}poll failed: token expired\n {4}read 5m ago$/m)
    const order = ['a@example.test', 'b@example.test', 'c@example.test'].map((a) => out.indexOf(`· ${a}`))
    assert.ok(order.every((at) => at >= 0))
  })

  it('--json prints the latest readings as the daemon gives them', async () => {
    const r = await quota(seeded, '--json')
    assert.equal(r.code, 0, r.stderr)
    const readings: QuotaReading[] = JSON.parse(r.stdout)
    const key = (x: QuotaReading) => `${x.provider}/${x.account}/${x.limit_id}`
    assert.deepEqual(readings.map(key).sort(), [
      'claude/c@example.test/',
      'codex/a@example.test/primary',
      'codex/a@example.test/secondary',
      'codex/b@example.test/primary',
    ])
    const of = (k: string) => readings.find((x) => key(x) === k)
    assert.equal(of('codex/b@example.test/primary')?.used_percent, null, 'unknown stays null')
    assert.equal(of('codex/a@example.test/primary')?.used_percent, 42)
    assert.equal(of('codex/a@example.test/primary')?.observed_at, new Date(now - MIN).toISOString())
    assert.equal(of('claude/c@example.test/')?.error, 'token expired')
  })

  it('at a terminal: colour unless NO_COLOR; on a narrow one every line fits and nothing is lost', async () => {
    const coloured = inTmux(seeded, 110)
    const withColour = await coloured.waitFor((s) => s.includes('read 5m ago'), 'the readings', 15_000, true)
    assert.match(withColour, new RegExp(`${ESC}\\[33mstale`), 'stale in yellow')
    assert.match(withColour, new RegExp(`${ESC}\\[36m`), 'the charts in colour')

    const plain = inTmux(seeded, 110, { NO_COLOR: '1' })
    const noColour = await plain.waitFor((s) => s.includes('read 5m ago'), 'the readings', 15_000, true)
    // A colour is set by 30-37 or 90-97 (39 is tmux's reset to the default).
    assert.doesNotMatch(
      noColour,
      new RegExp(`${ESC}\\[([0-9;]*;)?(3[0-7]|9[0-7])m`),
      'no colour with NO_COLOR',
    )
    assert.match(noColour, /stale/)

    const narrow = inTmux(seeded, 30)
    const screen = await narrow.waitFor((s) => s.includes('read 5m ago'), 'the narrow readings')
    const lines = screen.split('\n')
    assert.ok(
      lines.every((l) => [...l].length <= 30),
      screen,
    )
    assert.ok(
      lines.every((l) => !l.endsWith('…')),
      `nothing is cut:\n${screen}`,
    )
    // A reading's parts go on the next line when they do not fit.
    assert.match(screen, /^ {2}session {2}42% {2}5h$/m)
    assert.match(screen, /^ {4}resets in (1h 59m|2h)$/m)
    assert.match(screen, /^ {4}\(\d{4}-\d\d-\d\d \d\d:\d\d\)$/m)
    // Charts as wide as the terminal leaves: 30 less the indent and the scale.
    assert.match(screen, /^ {6}0% ▕[ ▁▂▃▄▅▆▇█]{19}[▁▂▃▄▅▆▇█]$/m)
    assert.match(screen, /capped/)
  })
})

describe('hearth quota without readings', () => {
  const daemons: TestDaemon[] = []
  let chatgpt: FakeChatgptBackend
  before(async () => {
    chatgpt = await FakeChatgptBackend.start()
  })
  after(async () => {
    for (const d of daemons) await d.stop()
    await chatgpt.close()
  })
  const start = async (o: Parameters<typeof startQuotaDaemon>[0]) => {
    const d = await startQuotaDaemon(o)
    daemons.push(d)
    return d
  }
  const quota = (d: TestDaemon, ...args: string[]) =>
    runCli(['quota', ...args, '--home', d.home], { HEARTH_HOME: '', COLUMNS: '200' })

  it('no account signed in: how to sign in', async () => {
    const d = await start({})
    const r = await quota(d)
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /^No quota readings: no account is signed in\.$/m)
    assert.match(r.stdout, /Sign in with hearth login \(chatgpt, claude or antigravity\)/)
    assert.match(r.stdout, /API-key profile is polled when its host reports usage/)
    const json = await quota(d, '--json')
    assert.deepEqual(JSON.parse(json.stdout), [])
  })

  it('polling off in extensions.json: says so and how to turn it on', async () => {
    const d = await start({ polling: false })
    const r = await quota(d)
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /No quota readings: quota polling is off/)
    assert.match(r.stdout, /hearth config set extensions '\{"quota":\{"enabled":true\}\}'/)
  })

  it('signed in but not polled yet: the reading appears shortly', async () => {
    const d = await start({ chatgpt })
    await signInChatgpt(d, chatgpt, { accountId: 'ws-a', userId: 'u-a', email: 'a@example.test' })
    const r = await quota(d)
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /No quota readings yet: a@example\.test is signed in but not polled yet\./)
    assert.match(r.stdout, /appears shortly/)
  })

  it('readings kept while polling is off are shown with a note that they are not updated', async () => {
    const d = await start({ polling: false, readings: quotaFixture(Date.now()).slice(-1) })
    const r = await quota(d)
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /^Quota polling is off: these readings are not updated/)
    assert.match(r.stdout, /poll failed: token expired/)
  })

  it('a usage error: exit 2', async () => {
    const d = await start({})
    const r = await quota(d, '--bogus')
    assert.equal(r.code, 2)
    assert.match(r.stderr, /unknown option --bogus/)
  })

  it('no daemon: exit 1 with the reason', async () => {
    const d = await start({})
    await d.stop()
    const r = await quota(d)
    assert.equal(r.code, 1)
    assert.match(r.stderr, /^hearth: /)
  })
})
