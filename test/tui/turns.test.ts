// How the full-screen client ends and reopens turns, in tmux against a real daemon with the
// scripted fake upstream: a failure and an interrupt are said once, the status line never
// shows two phases, and a reopened session shows a long answer whole.
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { callTools } from '../fakes/tool-script.ts'
import { BIN, until } from '../helpers/daemon.ts'
import { Tmux } from '../helpers/tmux.ts'
import { idle, message, putInput, type Setup, startWithUpstream, waitSession } from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'

const ready = (screen: string) => /idle · .*fake-model/.test(screen) && screen.includes('──────')
const count = (text: string, re: RegExp) => (text.match(re) ?? []).length

describe('turns in the full-screen client', () => {
  let s: Setup
  const terminals: Tmux[] = []
  const open = (args: string[] = [], size = { columns: 80, rows: 24 }) => {
    const t = Tmux.start([process.execPath, BIN, '--home', s.d.home, ...args], { ...size, cwd: s.d.home })
    terminals.push(t)
    return t
  }

  before(async () => {
    s = await startWithUpstream({ settings: { tools: { approval_policy: 'auto' } } })
  })
  after(async () => {
    for (const t of terminals) t.kill()
    await s.d.stop()
    await s.upstream.close()
  })

  it('an empty session shows how to begin, until its first message', async () => {
    const t = open()
    let screen = await t.waitFor(ready, 'the prompt')
    assert.match(
      screen.replace(/\s+/g, ' '),
      /Type a message, Enter sends · Alt-Enter new line · \/ commands/,
    )
    t.type('hint gone')
    t.keys('Enter')
    screen = await t.waitFor((x) => x.includes('Hello, world!') && ready(x), 'the answer')
    assert.doesNotMatch(screen, /Enter sends/)
  })

  it('Up recalls the messages of a reopened session, newest first', async () => {
    const id = await createSession(s.d)
    for (const [i, text] of ['the first message', 'the second message'].entries()) {
      await putInput(s.d, id, message(text))
      await waitSession(s.d, id, (x) => idle(x) && x.input_order === i + 1)
    }
    const t = open(['chat', id])
    await t.waitFor((x) => x.includes('the second message') && ready(x), 'the history')
    t.keys('Up')
    await t.waitFor((x) => /^ the second message\s*$/m.test(x), 'the newest message in the editor')
    t.keys('Up')
    await t.waitFor((x) => /^ the first message\s*$/m.test(x), 'the one before it')
  })

  it('says a failed turn once', async () => {
    s.upstream.enqueue({ status: 400, errorMessage: 'the fake refuses this request' })
    const t = open()
    await t.waitFor(ready, 'the prompt')
    t.type('fail please')
    t.keys('Enter')
    const screen = await t.waitFor(
      (x) => x.includes('the fake refuses this request') && ready(x),
      'the failure',
    )
    assert.equal(count(screen, /the fake refuses this request/g), 1, screen)
  })

  it('says an interrupt once, and the status line goes from interrupting to idle', async () => {
    // A command that ignores SIGTERM holds the run in `interrupting` for the kernel's stop
    // grace (2 s, then SIGKILL): long enough to see, whatever the machine's load. An
    // interrupted stream of text ends within milliseconds, before a frame may show it.
    const started = join(s.d.home, 'interrupt-started.flag')
    const command = `trap '' TERM; touch ${started}; sleep 60`
    s.upstream.enqueue(callTools({ name: 'shell', arguments: { command } }))
    const t = open()
    await t.waitFor(ready, 'the prompt')
    t.type('run the slow command please')
    t.keys('Enter')
    await until('the command to start', () => existsSync(started))
    t.keys('Escape')
    await t.waitFor((x) => /interrupting · /.test(x), 'the interrupting phase')
    const screen = await t.waitFor((x) => x.includes('(interrupted)') && ready(x), 'the interrupt')
    assert.equal(count(screen, /\(interrupted\)/g), 1, screen)
    // Idle, and nothing says it is still interrupting.
    assert.doesNotMatch(screen, /interrupting/)
  })

  it('a reopened session shows a long answer whole, past the 16,384 characters a page holds', async () => {
    const lines = Array.from({ length: 700 }, (_, i) => `line ${i} of a long answer`)
    const text = `${lines.join('\n')}\n\nTHE-END-MARK`
    assert.ok(text.length > 16_384)
    s.upstream.enqueue({ text: [text] })
    const id = await createSession(s.d)
    await putInput(s.d, id, message('answer at length'))
    await waitSession(s.d, id, (x) => idle(x) && x.input_order === 1)
    const history = await s.d.request({ method: 'GET', path: `/sessions/${id}/history` })
    assert.match(history.text(), /"truncated":true/, 'the page cuts the answer')
    const t = open(['chat', id], { columns: 80, rows: 30 })
    const screen = await t.waitFor((x) => x.includes('THE-END-MARK') && ready(x), 'the end of the answer')
    assert.doesNotMatch(screen, /cut here/)
    // Scrolled up, the lines past the cut (about line 630) are all there.
    t.keys('PageUp', 'PageUp')
    await t.waitFor((x) => /line 64\d of a long answer\n(.*\n)?.*line 65\d of/.test(x), 'lines past the cut')
  })
})
