// An MCP server's question in the line-mode CLI: `hearth chat` asks it on its input (field by
// field, defaults kept on an empty line, the daemon's field errors asked again), `hearth send`
// asks it at a terminal (tmux) and declines it, saying so, when nobody could be asked.
import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, it } from 'node:test'
import { answer, callTools, toolResultsOf } from '../fakes/tool-script.ts'
import { BIN, runCli } from '../helpers/daemon.ts'
import { Tmux } from '../helpers/tmux.ts'
import { newSession } from '../tools/agent-helpers.ts'
import { type AskSetup, answersOf, elicitationRows, startAsking } from './helpers.ts'

describe('an MCP server’s question in the CLI', () => {
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
  beforeEach(() => s.upstream.reset())

  const script = (tool: string, args: Record<string, unknown> = {}) =>
    s.upstream.enqueue(callTools({ name: `mcp__asker__${tool}`, arguments: args }), (req) =>
      answer(`The tool said ${toolResultsOf(req.body)[0]?.output}`),
    )

  it('send without a terminal declines the question and says so', async () => {
    const sid = await newSession(s)
    script('ask_form')
    const r = await runCli(['send', sid, 'ask me', '--home', s.d.home])
    assert.equal(r.code, 0, r.stderr)
    assert.match(
      r.stderr,
      /\(declined: MCP server asker asks: Who are you\?; answer it from a terminal or the API\)/,
    )
    assert.match(r.stdout, /The tool said decline: null/)
    assert.equal(elicitationRows(s.home, sid)[0].state, 'declined')
  })

  it('chat asks field by field; an empty line keeps the default; the daemon’s field errors are asked again', async () => {
    const sid = await newSession(s)
    script('ask_form')
    // Fields: name, age, color, tags, email, subscribe. A one-letter name is refused by the
    // daemon (at least 2 characters): the form is asked again with the error.
    const first = ['y', 'A', '', '', '', '', '']
    const second = ['y', 'Ada', '36', '', 'a, b', '', 'y']
    const r = await runCli(['chat', sid, '--home', s.d.home], undefined, {
      stdin: `ask me\n${[...first, ...second].join('\n')}\n`,
    })
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /MCP server asker asks: Who are you\?/)
    assert.match(r.stdout, /Your name \(text, 2–40 characters, required\): /)
    assert.match(r.stdout, /1 Red \(red\) · 2 Green \(green\)/)
    assert.match(r.stdout, /Color \(one of the choices\) \[green\]: /)
    assert.match(r.stdout, /\(must be at least 2 characters\)/)
    const content = { name: 'Ada', age: 36, color: 'green', tags: ['a', 'b'], subscribe: true }
    assert.match(
      r.stdout,
      new RegExp(`The tool said accept: ${JSON.stringify(content).replace(/[[\]{}]/g, '\\$&')}`),
    )
    assert.deepEqual(
      answersOf(s.log).find((a) => a.tool === 'ask_form' && a.action === 'accept')?.content,
      content,
    )
  })

  it('send at a terminal asks a URL question; y accepts', async () => {
    const sid = await newSession(s)
    const url = 'https://auth.example.com/cli?x=9'
    script('open_page', { url })
    const t = Tmux.start([process.execPath, BIN, 'send', sid, 'open the page', '--home', s.d.home], {
      columns: 120,
      rows: 30,
      env: { HEARTH_NO_BROWSER: '1' },
    })
    terminals.push(t)
    const screen = await t.waitFor((x) => x.includes('Open it? [y]es / [n]o / [c]ancel'), 'the question')
    assert.match(screen, /MCP server asker asks: Sign in to the example service/)
    assert.ok(screen.includes(url))
    t.type('y')
    t.keys('Enter')
    await t.waitFor((x) => x.includes('The tool said page: accept'), 'the answer')
    assert.equal(elicitationRows(s.home, sid)[0].state, 'accepted')
  })
})
