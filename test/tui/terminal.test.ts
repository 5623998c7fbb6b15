// The full-screen client in a real terminal: tmux runs `hearth` against a real daemon whose
// profile is the scripted fake upstream; the tests type with send-keys and read the screen.
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { answer, callTools } from '../fakes/tool-script.ts'
import { BIN, pathWithThisNode, tempHome } from '../helpers/daemon.ts'
import { Tmux } from '../helpers/tmux.ts'
import { idle, message, putInput, type Setup, startWithUpstream, waitSession } from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'

const MARKDOWN = '# Results\n\nIt **works**:\n\n```js\nconst answer = 42\n```\n\nDone.\n'
/** The editor's bottom border: the prompt is drawn. */
const ready = (screen: string) => /idle · .*fake-model/.test(screen) && screen.includes('──────')
/** Any foreground colour (30-37, 90-97, 256 or true colour) in a captured screen. */
const FOREGROUND = /\x1b\[(?:[0-9;]*;)?(?:3[0-7]|9[0-7]|38;[25];[0-9;]+)m/

/** One notch of the mouse wheel over the pane, as an SGR mouse report. */
function wheel(t: Tmux, direction: 'up' | 'down'): void {
  const report = `\x1b[<${direction === 'up' ? 64 : 65};10;5M`
  t.tmux('send-keys', '-t', 'main', '-H', ...[...report].map((c) => c.charCodeAt(0).toString(16)))
}

describe('the full-screen client in tmux', () => {
  let s: Setup
  const terminals: Tmux[] = []
  const open = (args: string[] = [], env: Record<string, string> = {}, size = { columns: 80, rows: 24 }) => {
    const t = Tmux.start([process.execPath, BIN, '--home', s.d.home, ...args], {
      ...size,
      env,
      cwd: s.d.home,
    })
    terminals.push(t)
    return t
  }
  /** The fake upstream's requests whose input holds `text`. */
  const requestsWith = (text: string) =>
    s.upstream.requests.filter((r) =>
      JSON.stringify(r.body.input).includes(JSON.stringify(text).slice(1, -1)),
    )

  before(async () => {
    s = await startWithUpstream()
  })
  after(async () => {
    for (const t of terminals) t.kill()
    await s.d.stop()
    await s.upstream.close()
  })

  it('streams an answer with Markdown rendered and code highlighted, and reopens it with its history', async () => {
    s.upstream.enqueue({ text: MARKDOWN.match(/.{1,6}/gs) ?? [], delayMs: 5 })
    const t = open()
    await t.waitFor(ready, 'the prompt')
    t.type('show me markdown')
    t.keys('Enter')
    const screen = await t.waitFor((x) => x.includes('Done.'), 'the answer')
    assert.match(screen, /^ {2}Results$/m, 'the heading without its #')
    assert.match(screen, /It works:/)
    assert.match(screen, /const answer = 42/)
    assert.doesNotMatch(screen, /\*\*|^# /m)
    const coloured = t.screen(true)
    assert.match(coloured, /\x1b\[35mconst/, 'the keyword is coloured')
    assert.equal(requestsWith('show me markdown').length, 1)

    // The session, opened again by id, shows its history.
    const { body } = await s.d.client.call('sessions.list', { query: { limit: 1 } })
    const id = (body as { items: { id: string }[] }).items[0].id
    t.keys('C-c', 'C-c')
    await t.waitFor(() => t.ended, 'the client to quit on a second Ctrl-C')
    const again = open(['chat', id])
    const history = await again.waitFor((x) => x.includes('Done.') && ready(x), 'the history')
    assert.match(history, /› show me markdown/)
  })

  it('shows a tool call as a block, asks its approval inline and runs it once allowed', async () => {
    // A workspace of its own: the file tools never touch hearth's home.
    const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-tui-ws-')))
    s.upstream.enqueue(
      callTools({ name: 'write', arguments: { path: 'from-tui.txt', content: 'written\n' } }),
      callTools({ name: 'shell', arguments: { command: 'echo streamed-from-shell' } }),
      answer('All done.'),
    )
    const t = Tmux.start([process.execPath, BIN, '--home', s.d.home], {
      columns: 100,
      rows: 30,
      cwd: workspace,
    })
    terminals.push(t)
    await t.waitFor(ready, 'the prompt')
    t.type('write the file')
    t.keys('Enter')
    let screen = await t.waitFor((x) => /allow\? y allow · n deny · a always/.test(x), 'the write approval')
    assert.match(screen, /\? write .*from-tui\.txt/)
    assert.ok(!existsSync(join(workspace, 'from-tui.txt')), 'nothing written before the answer')
    t.type('y')
    screen = await t.waitFor((x) => /\? shell: echo streamed-from-shell/.test(x), 'the shell approval')
    assert.equal(readFileSync(join(workspace, 'from-tui.txt'), 'utf8'), 'written\n')
    t.type('n')
    screen = await t.waitFor((x) => x.includes('All done.') && ready(x), 'the answer')
    assert.match(screen, /✓ write/)
    assert.match(screen, /denied/)
    assert.doesNotMatch(screen, /│ streamed-from-shell/, 'the denied command never ran')
  })

  it('sends a multi-line paste as one message; Alt-Enter adds a line', async () => {
    const t = open()
    await t.waitFor(ready, 'the prompt')
    t.paste('first pasted line\nsecond pasted line\nthird pasted line')
    t.keys('M-Enter')
    t.type('typed after')
    t.keys('Enter')
    await t.waitFor((x) => x.includes('Hello, world!'), 'the answer')
    const sent = requestsWith('first pasted line\nsecond pasted line\nthird pasted line\ntyped after')
    assert.equal(sent.length, 1, 'one message holding every line')
  })

  it('Esc interrupts the running turn', async () => {
    s.upstream.enqueue({ text: Array.from({ length: 200 }, (_, i) => `slow${i} `), delayMs: 100 })
    const t = open()
    await t.waitFor(ready, 'the prompt')
    t.type('a long answer please')
    t.keys('Enter')
    await t.waitFor((x) => x.includes('slow3'), 'the answer to start')
    t.keys('Escape')
    const screen = await t.waitFor((x) => x.includes('(interrupted)') && ready(x), 'the interrupt')
    assert.doesNotMatch(screen, /slow199/)
  })

  it('follows a resize and fits a 20-column terminal', async () => {
    const t = open([], {}, { columns: 80, rows: 24 })
    await t.waitFor(ready, 'the prompt')
    t.type('narrow')
    t.keys('Enter')
    await t.waitFor((x) => x.includes('Hello, world!'), 'the answer')
    t.resize(20, 12)
    const screen = await t.waitFor((x) => x.split('\n').some((l) => /^─{20}$/.test(l)), 'a 20-column border')
    assert.ok(screen.includes('Hello, world!'))
    for (const line of screen.split('\n')) assert.ok(line.length <= 20, line)
  })

  it('NO_COLOR turns colour off', async () => {
    s.upstream.enqueue({ text: [MARKDOWN], delayMs: 0 })
    const t = open([], { NO_COLOR: '1' })
    await t.waitFor(ready, 'the prompt')
    t.type('no colour')
    t.keys('Enter')
    await t.waitFor((x) => x.includes('Done.'), 'the answer')
    const coloured = t.screen(true)
    assert.match(coloured, /const answer = 42/)
    assert.doesNotMatch(coloured, FOREGROUND)
  })

  it('reads older history in pages as the transcript scrolls past the top', async () => {
    const id = await createSession(s.d)
    for (let i = 0; i < 30; i++) {
      await putInput(s.d, id, message(`turn ${i} asked`))
      await waitSession(s.d, id, (x) => idle(x) && x.input_order === i + 1)
    }
    const t = open(['chat', id])
    await t.waitFor((x) => x.includes('turn 29 asked') && ready(x), 'the newest entries')
    // The first page holds the newest 50 of the 60 entries: the oldest turns are not read yet.
    // Each PageUp moves the screen, or loads an older page; the next key waits for that.
    let screen = t.screen()
    const deadline = Date.now() + 60_000
    while (!screen.includes('turn 0 asked') && Date.now() < deadline) {
      t.keys('PageUp')
      const before = screen
      screen = await t.waitFor((x) => x !== before, 'the screen to move', 2_000).catch(() => t.screen())
    }
    assert.match(screen, /› turn 0 asked/)
  })

  it('opens a busy session live: the answer so far, then the rest as it streams', async () => {
    const id = await createSession(s.d)
    s.upstream.enqueue({ text: Array.from({ length: 100 }, (_, i) => `part${i} `), delayMs: 80 })
    await putInput(s.d, id, message('a running turn'))
    await waitSession(s.d, id, (x) => x.activity.output_utf8_bytes > 30)
    const t = open(['chat', id])
    // While the turn still runs, the screen holds what streamed before it opened and after.
    const live = await t.waitFor(
      (x) => /part[1-8]\d\b/.test(x) && /running · /.test(x),
      'the answer streaming',
    )
    assert.match(live.replace(/\s+/g, ' '), /part0 part1 part2 /)
    const screen = await t.waitFor((x) => x.includes('part99') && ready(x), 'the whole answer', 30_000)
    assert.match(screen.replace(/\s+/g, ' '), /part0 part1 part2 .*part98 part99/)
  })

  it('turns mouse reporting on (buttons, SGR) and the wheel scrolls the transcript; off again on quitting', async () => {
    const id = await createSession(s.d)
    for (let i = 0; i < 12; i++) {
      await putInput(s.d, id, message(`wheel turn ${i}`))
      await waitSession(s.d, id, (x) => idle(x) && x.input_order === i + 1)
    }
    const t = open(['chat', id])
    let screen = await t.waitFor((x) => x.includes('wheel turn 11') && ready(x), 'the newest turn')
    assert.doesNotMatch(screen, /wheel turn 0\b/)
    const flags = () =>
      t
        .tmux(
          'display-message',
          '-p',
          '-t',
          'main',
          '#{mouse_standard_flag}#{mouse_button_flag}#{mouse_sgr_flag}',
        )
        .trim()
    // Button events (1000) in the SGR encoding (1006), no drag tracking (1002): Shift-drag selects.
    assert.equal(flags(), '101')
    for (let i = 0; i < 15; i++) wheel(t, 'up')
    screen = await t.waitFor((x) => /wheel turn 0\b/.test(x), 'the first turn scrolled to')
    assert.match(screen, /↓ \d+ more lines/)
    assert.doesNotMatch(screen, /\[<6[45];/, 'no mouse report reaches the editor')
    for (let i = 0; i < 30; i++) wheel(t, 'down')
    screen = await t.waitFor(
      (x) => x.includes('wheel turn 11') && !/more lines/.test(x),
      'back at the bottom',
    )
    t.type('/quit')
    t.keys('Enter')
    await t.waitFor(() => t.ended, 'the client to end')
    assert.equal(flags(), '000')
  })

  it('HEARTH_MOUSE=off leaves mouse reporting off', async () => {
    const t = open([], { HEARTH_MOUSE: 'off' })
    await t.waitFor(ready, 'the prompt')
    assert.equal(
      t.tmux('display-message', '-p', '-t', 'main', '#{mouse_standard_flag}#{mouse_sgr_flag}').trim(),
      '00',
    )
  })

  it('completes command names; /rename and /fork change the session on the daemon', async () => {
    const t = open()
    await t.waitFor(ready, 'the prompt')
    t.type('/ren')
    await t.waitFor((x) => /→ rename +NAME — name this session/.test(x), 'the command offered')
    t.keys('Tab')
    await t.waitFor((x) => /^ \/rename\s*$/m.test(x), 'the completed name')
    t.type('tui renamed')
    t.keys('Enter')
    await t.waitFor((x) => x.includes('renamed to tui renamed'), 'the rename')
    const { body } = await s.d.client.call('sessions.list', { query: { search: 'tui renamed' } })
    const renamed = (body as { items: { id: string; name: string }[] }).items
    assert.equal(renamed.length, 1)
    t.type('/fork')
    t.keys('Enter')
    const screen = await t.waitFor((x) => x.includes('forked '), 'the fork')
    const forkId = /forked \S+ into ([0-9a-f-]{36})/.exec(screen.replace(/\n\s*/g, ' '))?.[1]
    assert.ok(forkId, screen)
    const { body: fork } = await s.d.client.call('sessions.get', {
      params: { session_id: forkId },
      query: { tail: 0 },
    })
    assert.equal(
      (fork as { creation: { submitted: { source_id: string } } }).creation.submitted.source_id,
      renamed[0].id,
    )
  })

  it('falls back to the line mode when standard input is not a terminal', async () => {
    const t = Tmux.start(['sh', '-c', `echo hi | ${process.execPath} ${BIN} chat --home ${s.d.home}`], {
      columns: 80,
      rows: 10,
    })
    terminals.push(t)
    await t.waitFor((x) => x.includes('Hello, world!'), 'the line-mode answer')
    await t.waitFor(() => t.ended, 'the end of the input to end the chat')
    // The pane ends with tmux's own "Pane is dead" line, which may push the first line into
    // the scrollback of a 10-row pane: read that too.
    const all = t.tmux('capture-pane', '-p', '-S', '-', '-t', 'main')
    assert.match(all, /^> session [0-9a-f-]{36} \(fake fake-model\)\nHello, world!/m)
  })

  it('with no daemon says how to start one and starts none unless asked', async () => {
    const home = tempHome()
    const t = Tmux.start([process.execPath, BIN, '--home', home], { columns: 100, rows: 10 })
    terminals.push(t)
    await t.waitFor((x) => x.includes('No hearth daemon runs') && x.includes('press d'), 'the advice')
    t.keys('q')
    await t.waitFor(() => t.ended, 'the client to quit')
    assert.equal(existsSync(join(home, 'daemon.json')), false)
  })

  it('starts a daemon when asked with d, then opens the chat', async () => {
    const home = tempHome()
    const t = Tmux.start([process.execPath, BIN, '--home', home], {
      columns: 100,
      rows: 12,
      env: { PATH: pathWithThisNode() },
      cwd: home,
    })
    terminals.push(t)
    await t.waitFor((x) => x.includes('press d'), 'the advice')
    t.keys('d')
    try {
      await t.waitFor((x) => /idle · /.test(x) && x.includes('────'), 'the chat on the new daemon', 20_000)
    } finally {
      const pid = existsSync(join(home, 'daemon.json'))
        ? JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8')).pid
        : undefined
      if (pid) process.kill(pid, 'SIGTERM')
    }
  })
})
