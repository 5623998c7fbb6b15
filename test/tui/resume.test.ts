// Leaving and coming back to the full-screen client in a real terminal (tmux) against a real
// daemon whose profile is the fake upstream: a client quit before its first message leaves
// no session, quitting prints the command that continues the session and that command opens
// it, and `hearth -c` opens the latest session of the directory.
import assert from 'node:assert/strict'
import { mkdtempSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { BIN, startDaemon, type TestDaemon } from '../helpers/daemon.ts'
import { Tmux } from '../helpers/tmux.ts'
import { idle, message, putInput, type Setup, startWithUpstream, waitSession } from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'

/** The prompt is drawn under a status line that names the profile's model. */
const ready = (screen: string) => /idle · .*fake-model/.test(screen) && screen.includes('──────')

describe('leaving and resuming the full-screen client', () => {
  let s: Setup
  const terminals: Tmux[] = []
  const open = (cwd: string, args: string[] = []) => {
    const t = Tmux.start([process.execPath, BIN, '--home', s.d.home, ...args], {
      columns: 100,
      rows: 24,
      cwd,
    })
    terminals.push(t)
    return t
  }
  const sessionIds = async () => {
    const r = await s.d.request({ method: 'GET', path: '/sessions?scope=all&limit=200' })
    return (r.json() as { items: { id: string }[] }).items.map((x) => x.id)
  }
  const quit = async (t: Tmux) => {
    t.keys('C-c', 'C-c')
    await t.waitFor(() => t.ended, 'the client to quit')
  }
  /** The screen with the lines scrolled above it (the client's last words are printed on leaving). */
  const printed = (t: Tmux) => t.tmux('capture-pane', '-p', '-S', '-100', '-t', 'main')
  const workspace = () => realpathSync(mkdtempSync(join(tmpdir(), 'hearth-resume-')))

  before(async () => {
    s = await startWithUpstream()
  })
  after(async () => {
    for (const t of terminals) t.kill()
    await s.d.stop()
    await s.upstream.close()
  })

  it('opening and quitting without a message leaves no session', async () => {
    const before = await sessionIds()
    const t = open(workspace())
    await t.waitFor(ready, 'the prompt with the default profile and model')
    await quit(t)
    assert.deepEqual(await sessionIds(), before)
    assert.doesNotMatch(printed(t), /Continue this session/)
  })

  it('the first message creates the session; quitting prints the command that opens it again', async () => {
    const dir = workspace()
    const t = open(dir)
    await t.waitFor(ready, 'the prompt')
    t.type('keep this in mind')
    t.keys('Enter')
    await t.waitFor((x) => x.includes('Hello, world!') && ready(x), 'the answer')
    const { body } = await s.d.client.call('sessions.list', { query: { workspace: dir } })
    const ids = (body as { items: { id: string }[] }).items.map((x) => x.id)
    assert.equal(ids.length, 1)
    await quit(t)
    const resume = /Continue this session with: (hearth chat (\S+))/.exec(printed(t))
    assert.ok(resume, printed(t))
    assert.equal(resume[2], ids[0].slice(-6))
    const again = open(workspace(), resume[1].split(' ').slice(1))
    const history = await again.waitFor((x) => x.includes('keep this in mind') && ready(x), 'the history')
    assert.match(history, /Hello, world!/)
  })

  it('hearth -c opens the latest session of the directory', async () => {
    const dir = workspace()
    const older = await createSession(s.d, { kind: 'new', workspace: dir })
    const latest = await createSession(s.d, { kind: 'new', workspace: dir })
    for (const [id, text] of [
      [older, 'the older one'],
      [latest, 'the latest one'],
    ]) {
      await putInput(s.d, id, message(text))
      await waitSession(s.d, id, (x) => idle(x) && x.latest_answer !== null)
    }
    const t = open(dir, ['-c'])
    const screen = await t.waitFor((x) => x.includes('the latest one') && ready(x), 'the latest session')
    assert.doesNotMatch(screen, /the older one/)
    await quit(t)
    assert.match(printed(t), new RegExp(`Continue this session with: hearth chat ${latest.slice(-6)}`))
  })
})

describe('the full-screen client on a first run without a profile', () => {
  let d: TestDaemon
  let t: Tmux | undefined
  before(async () => {
    d = await startDaemon()
  })
  after(async () => {
    t?.kill()
    await d.stop()
  })

  it('a message fails saying hearth profile add, /login and --demo, never an empty profile name', async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-first-')))
    t = Tmux.start([process.execPath, BIN, '--home', d.home], { columns: 120, rows: 24, cwd })
    await t.waitFor((x) => /idle · .*no profile/.test(x) && x.includes('──────'), 'the prompt')
    t.type('hi')
    t.keys('Enter')
    const screen = await t.waitFor((x) => x.includes('--demo'), 'the advice')
    const text = screen.replace(/\s+/g, ' ')
    assert.match(text, /hearth profile add/)
    assert.match(text, /\/login/)
    assert.doesNotMatch(text, /""/)
  })
})
