// An MCP server's question in the full-screen client, end to end: tmux runs `hearth chat` on
// a session of a real daemon whose fake model calls the asking server's tools; the question
// screen shows the form (or the URL), and keys answer it: typed fields then Enter accept,
// Ctrl-D declines, Esc cancels, y opens a URL. What reached the server and the model is read
// back, and the chat takes typed text again once the screen has closed.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { answer, callTools, toolResultsOf } from '../fakes/tool-script.ts'
import { BIN } from '../helpers/daemon.ts'
import { Tmux } from '../helpers/tmux.ts'
import { idle, message, putInput, waitSession } from '../inputs/helpers.ts'
import { newSession } from '../tools/agent-helpers.ts'
import { type AskSetup, answersOf, elicitationRows, reply, startAsking, waitAsked } from './helpers.ts'

const ready = (screen: string) => /idle · .*fake-model/.test(screen) && screen.includes('──────')
const flat = (screen: string) => screen.replace(/\s+/g, ' ')

describe('an MCP server’s question in the full-screen client', () => {
  let s: AskSetup
  const terminals: Tmux[] = []
  before(async () => {
    s = await startAsking()
  })
  after(async () => {
    for (const t of terminals) t.kill()
    await s.d.stop()
    await s.upstream.close()
  })

  async function asked(tool: string, args: Record<string, unknown> = {}) {
    const id = await newSession(s)
    const t = Tmux.start([process.execPath, BIN, '--home', s.d.home, 'chat', id], {
      columns: 100,
      rows: 40,
      cwd: s.workspace,
      env: { HEARTH_NO_BROWSER: '1' },
    })
    terminals.push(t)
    await t.waitFor(ready, 'the prompt')
    s.upstream.enqueue(callTools({ name: `mcp__asker__${tool}`, arguments: args }), (req) =>
      answer(`The tool said ${toolResultsOf(req.body)[0]?.output}`),
    )
    t.type(`call ${tool}`)
    t.keys('Enter')
    await t.waitFor((x) => x.includes('MCP server asker asks'), 'the question screen')
    return { t, id }
  }

  it('a form: the fields show with their types and choices; typed values and Enter accept', async () => {
    const { t, id } = await asked('ask_form')
    let screen = await t.waitFor((x) => x.includes('Who are you?') && x.includes('Enter send'), 'the form')
    assert.match(screen, /Your name \(text, 2–40 characters, required\)/)
    assert.match(screen, /Age \(whole number, 0 to 150\)/)
    assert.match(flat(screen), /1 Red \(red\) · 2 Green \(green\)/)
    // Enter with the required name empty: marked, nothing sent.
    t.keys('Enter')
    await t.waitFor((x) => x.includes('fix the fields marked'), 'the local check')
    assert.equal(elicitationRows(s.home, id)[0].state, 'pending')
    t.type('Ada')
    t.keys('Down')
    t.type('36')
    t.keys('Down', 'Left') // the color steps from its default (green) to red
    t.keys('Enter')
    screen = await t.waitFor((x) => x.includes('The tool said accept') && ready(x), 'the accepted form')
    assert.match(flat(screen), /MCP server asker asks: Who are you\? — accepted/)
    assert.doesNotMatch(screen, /answered elsewhere/, 'an answer from here is not news from elsewhere')
    const reached = answersOf(s.log).find((a) => a.tool === 'ask_form' && a.action === 'accept')
    assert.deepEqual(reached.content, { name: 'Ada', age: 36, color: 'red', subscribe: false })
    await waitSession(s.d, id, idle)
    // The chat takes keys again.
    t.type('thanks')
    await t.waitFor((x) => /^ ?thanks/m.test(x), 'typed text in the editor')
  })

  it('Ctrl-D declines a form', async () => {
    const { t, id } = await asked('ask_form')
    t.keys('C-d')
    const screen = await t.waitFor(
      (x) => x.includes('The tool said decline') && ready(x),
      'the declined form',
    )
    assert.match(flat(screen), /— declined/)
    assert.equal(elicitationRows(s.home, id)[0].state, 'declined')
  })

  it('Esc cancels the question; the run goes on', async () => {
    const { t, id } = await asked('ask_form')
    t.keys('Escape')
    const screen = await t.waitFor(
      (x) => x.includes('The tool said cancel') && ready(x),
      'the cancelled form',
    )
    assert.match(flat(screen), /— cancelled/)
    assert.equal(elicitationRows(s.home, id)[0].state, 'cancelled')
  })

  it('a URL: shown whole; y agrees to open it', async () => {
    const url = 'https://auth.example.com/consent?session=42'
    const { t, id } = await asked('open_page', { url })
    const screen = await t.waitFor((x) => x.includes('y open it'), 'the URL question')
    assert.ok(flat(screen).includes(url))
    assert.match(screen, /Sign in to the example service/)
    t.type('y')
    await t.waitFor((x) => x.includes('The tool said page: accept') && ready(x), 'the accepted URL')
    assert.equal(elicitationRows(s.home, id)[0].state, 'accepted')
  })

  it('a question answered by another client closes the screen, and says so', async () => {
    const { t, id } = await asked('ask_form')
    const reason = await waitAsked(s.d, id)
    assert.equal((await reply(s.d, id, reason.request_id, 'decline')).status, 202)
    const screen = await t.waitFor(
      (x) => x.includes('answered elsewhere or expired') && x.includes('The tool said decline') && ready(x),
      'the screen closed',
    )
    assert.doesNotMatch(screen, /Enter send/)
  })

  it('a session opened while a question waits shows the question at once', async () => {
    const id = await newSession(s)
    s.upstream.enqueue(callTools({ name: 'mcp__asker__ask_form', arguments: {} }), (req) =>
      answer(`The tool said ${toolResultsOf(req.body)[0]?.output}`),
    )
    assert.equal((await putInput(s.d, id, message('ask from elsewhere'))).status, 202)
    await waitAsked(s.d, id)
    const t = Tmux.start([process.execPath, BIN, '--home', s.d.home, 'chat', id], {
      columns: 100,
      rows: 40,
      cwd: s.workspace,
    })
    terminals.push(t)
    await t.waitFor((x) => x.includes('Who are you?') && x.includes('Enter send'), 'the question on opening')
    t.type('Grace')
    t.keys('Enter')
    await t.waitFor((x) => x.includes('The tool said accept') && ready(x), 'the answer')
    assert.equal(elicitationRows(s.home, id)[0].state, 'accepted')
  })
})
