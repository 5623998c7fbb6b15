// The client's rendering pieces and key handling, without a terminal: Markdown to lines,
// streaming Markdown, wrapping at narrow widths, the transcript's blocks for tool calls and
// approvals, its window, and the chat screen's editor keys.
import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { ChatScreen } from '../../src/tui/chat-screen.ts'
import { parseCommand } from '../../src/tui/commands.ts'
import { highlightLines, loadHighlighter } from '../../src/tui/highlight.ts'
import { urlRows } from '../../src/tui/login-screen.ts'
import { loadMarkdown, markdownLines, StreamingMarkdown } from '../../src/tui/markdown.ts'
import { type TUI, visibleWidth } from '../../src/tui/pi.ts'
import { SessionLink } from '../../src/tui/session-link.ts'
import { makeTheme } from '../../src/tui/theme.ts'
import { Transcript } from '../../src/tui/transcript.ts'
import { windowOf } from '../../src/tui/window.ts'

const plain = makeTheme(false)
const colour = makeTheme(true)
const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '').trimEnd()

const SAMPLE =
  '# Title\n\nSome **bold** text.\n\n- one\n- two\n\n```js\nconst x = 1\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n'

before(() => loadMarkdown())

describe('Markdown to lines', () => {
  it('renders headings, emphasis, lists, code blocks and tables', () => {
    const lines = markdownLines(SAMPLE, 40, plain).map(strip)
    assert.ok(lines.includes('Title'), lines.join('\n'))
    assert.ok(!lines.some((l) => l.includes('**') || l.startsWith('#')))
    assert.ok(lines.includes('- one') && lines.includes('- two'))
    assert.ok(lines.some((l) => l.includes('const x = 1')))
    assert.ok(
      lines.some((l) => /│ 1 │ 2 │/.test(l)),
      lines.join('\n'),
    )
  })

  it('highlights code once the grammars are loaded, and not without colour', async () => {
    await loadHighlighter(() => {})
    const lines = highlightLines('const x = 1', 'js', colour)
    assert.ok(lines && /\x1b\[35mconst/.test(lines[0]), JSON.stringify(lines))
    assert.equal(highlightLines('const x = 1', 'js', plain), undefined)
    assert.equal(highlightLines('x', 'no-such-language', colour), undefined)
  })

  it('streams to the same lines as the whole text, delta by delta', () => {
    const s = new StreamingMarkdown(plain)
    for (const ch of SAMPLE) {
      s.append(ch)
      s.render(40)
    }
    assert.deepEqual(
      s.render(40).map(strip).filter(Boolean),
      markdownLines(SAMPLE, 40, plain).map(strip).filter(Boolean),
    )
  })

  it('keeps every line within a narrow width', () => {
    const long = `${'word '.repeat(40)}\n\n\`\`\`\n${'x'.repeat(70)}\n\`\`\`\n`
    for (const width of [20, 33]) {
      for (const l of markdownLines(long, width, colour))
        assert.ok(visibleWidth(l) <= width, `${width}: ${l}`)
    }
  })
})

describe('transcript', () => {
  it('shows tool calls with live output and outcome, and approvals until decided', () => {
    const t = new Transcript(plain)
    t.apply('tool.started', {
      run_id: 'r',
      call_id: 'c1',
      name: 'shell',
      summary: 'shell: ls -l',
      effect: 'read',
    })
    t.apply('tool.progress', { call_id: 'c1', stream: 'stdout', text: 'a.txt\nb.txt\n' })
    let text = windowOf(t, 60, 20, 0).lines.map(strip).join('\n')
    assert.match(text, /⋯ shell: ls -l/)
    assert.match(text, /│ b\.txt/)
    t.apply('tool.ended', { call_id: 'c1', outcome: 'ok', output: '', meta: { exit_code: 0 } })
    t.apply('approval.requested', {
      run_id: 'r',
      request_id: 'q1',
      tool: 'shell',
      summary: 'shell: rm x',
      effect: 'write',
    })
    text = windowOf(t, 60, 20, 0).lines.map(strip).join('\n')
    assert.match(text, /✓ shell: ls -l ok, exit 0/)
    assert.match(text, /\? shell: rm x \(write\)/)
    assert.match(text, /y allow · n deny · a always/)
    assert.equal(t.openApproval?.requestId, 'q1')
    t.apply('approval.decided', { request_id: 'q1', decision: 'deny' })
    assert.equal(t.openApproval, undefined)
    assert.match(windowOf(t, 60, 20, 0).lines.map(strip).join('\n'), /denied/)
  })

  it('one block per tool call, from its entry, its events and its result, live or from the history', () => {
    const call = { run_id: 'r', call_id: 'c2', name: 'write', summary: 'write a.ts', effect: 'write' }
    const entry = (position: number, kind: string, content: Record<string, unknown>) => ({
      entry: { id: String(position), position, kind, content },
    })
    const live = new Transcript(plain)
    live.apply('entry.added', entry(3, 'tool_call', { ...call, arguments: '{}' }))
    live.apply('tool.started', call)
    live.apply('tool.ended', { run_id: 'r', call_id: 'c2', outcome: 'error', output: 'EACCES', meta: {} })
    live.apply(
      'entry.added',
      entry(4, 'tool_result', { ...call, outcome: 'error', output: 'EACCES', meta: {} }),
    )
    assert.equal(live.blocks.length, 1)
    assert.match(windowOf(live, 60, 10, 0).lines.map(strip).join('\n'), /✗ write a\.ts error\n.*│ EACCES/)
    const history = new Transcript(plain)
    history.prependHistory([
      { id: '3', position: 3, kind: 'tool_call', content: { ...call, arguments: '{}' } },
      {
        id: '4',
        position: 4,
        kind: 'tool_result',
        content: { ...call, outcome: 'ok', output: 'done', meta: {} },
      },
    ])
    assert.equal(history.blocks.length, 1)
    assert.match(windowOf(history, 60, 10, 0).lines.map(strip).join('\n'), /✓ write a\.ts ok/)
  })

  it('completes a streamed answer with its entry instead of showing it twice', () => {
    const t = new Transcript(plain)
    t.apply('output.started', { run_id: 'r', content_id: 'k', kind: 'text', index: 0 })
    t.apply('output.delta', { content_id: 'k', delta: 'Hello' })
    t.apply('entry.added', {
      entry: {
        id: '2',
        position: 2,
        kind: 'assistant',
        content: { text: 'Hello', run_id: 'r', status: 'complete' },
      },
    })
    assert.equal(t.blocks.length, 1)
  })

  it('windows from the bottom and stops at the top', () => {
    const t = new Transcript(plain)
    for (let i = 0; i < 30; i++) t.notice(`line ${i}`)
    const bottom = windowOf(t, 40, 5, 0)
    assert.match(bottom.lines.map(strip).join('\n'), /line 29/)
    const top = windowOf(t, 40, 5, 10_000)
    assert.equal(top.atTop, true)
    assert.match(strip(top.lines[0]), /line 0/)
  })

  it('reasoning is one dim line until shown', () => {
    const t = new Transcript(plain)
    t.apply('output.started', { run_id: 'r', content_id: 'k', kind: 'reasoning', index: 0 })
    t.apply('output.delta', { content_id: 'k', delta: 'first thought\nsecond thought' })
    assert.equal(windowOf(t, 40, 10, 0).lines.filter((l) => l.includes('thought')).length, 1)
    t.showReasoning = true
    t.invalidate()
    assert.equal(windowOf(t, 40, 10, 0).lines.filter((l) => l.includes('thought')).length, 2)
  })
})

describe('chat screen keys', () => {
  function screen() {
    const fakeTui = { requestRender() {}, terminal: { rows: 24, columns: 80 } } as unknown as TUI
    const link = new SessionLink(() => {
      throw new Error('no daemon in this test')
    }, new Transcript(plain))
    const sent: string[] = []
    link.send = async (text: string) => {
      sent.push(text)
    }
    const s = new ChatScreen({
      tui: fakeTui,
      link,
      theme: plain,
      workspace: '/',
      rows: () => 24,
      quit: () => {},
    })
    const keys = (...k: string[]) => {
      for (const d of k) s.handleInput(d)
    }
    return { s, sent, keys }
  }

  it('Enter sends, Alt-Enter adds a line, a bracketed paste of many lines is one message', () => {
    const { sent, keys } = screen()
    keys('a', 'b', '\x1b\r', 'c', '\r')
    keys('\x1b[200~one\ntwo\nthree\x1b[201~', '\r')
    assert.deepEqual(sent, ['ab\nc', 'one\ntwo\nthree'])
  })

  it('Up at the first line recalls the previous message; words and cursor move', () => {
    const { s, sent, keys } = screen()
    keys('h', 'i', '\r', '\x1b[A')
    assert.equal(s.editor.getText(), 'hi')
    keys('\x01', 'X', '\r') // Ctrl-A: start of line
    assert.deepEqual(sent, ['hi', 'Xhi'])
    keys(...'one two', '\x1b[1;5D', '_', '\r') // Ctrl-Left: a word back
    assert.equal(sent.at(-1), 'one _two')
  })

  it('templates that arrive while a completion list shows leave it open', async () => {
    const { s, keys } = screen()
    keys('/', 'r', 'e', 'n')
    const until = Date.now() + 5_000
    while (!s.editor.isShowingAutocomplete() && Date.now() < until) await sleep(10)
    assert.equal(s.editor.isShowingAutocomplete(), true, 'the list of commands shows')
    s.templates.set([{ name: 'review', description: 'Review a file', argument_hint: 'FILE' }] as never)
    assert.equal(s.editor.isShowingAutocomplete(), true, 'still showing after the templates came')
  })

  it('a slash line runs the command instead of sending it', () => {
    const { s, sent, keys } = screen()
    keys(...'/help', '\x1b[27~'.slice(0, 0), '\r')
    assert.deepEqual(sent, [])
    // The help's last lines are on screen (the 24-row screen shows the newest lines).
    assert.match(s.render(80).map(strip).join('\n'), /\/help {2}keys and commands/)
    assert.equal(parseCommand('/rename  my name ')?.args, 'my name')
    assert.equal(parseCommand('not a command'), undefined)
  })
})

describe('a text the history cut', () => {
  it('is marked while its whole is read, then shown whole; a failed read keeps the mark and says why', async () => {
    const strip = (lines: readonly string[]) => lines.join('\n').replace(/\x1b\[[0-9;]*m/g, '')
    const t = new Transcript(plain)
    let redraws = 0
    t.redraw = () => redraws++
    t.readWhole = async (entryId) => {
      if (entryId === '2') throw new Error('the daemon went away')
      return 'the start and the whole rest'
    }
    t.prependHistory([
      {
        id: '1',
        position: 1,
        kind: 'assistant',
        content: { text: 'the start', truncated: true, text_bytes: 28 },
      },
      {
        id: '2',
        position: 2,
        kind: 'user',
        content: { text: 'a cut message', truncated: true, text_bytes: 99 },
      },
    ])
    const [answerBlock, userBlock] = t.blocks
    assert.match(
      strip(answerBlock.render(60)),
      /the start *\n.*… cut here \(28 bytes in all\): reading the rest…/,
    )
    userBlock.render(60)
    await sleep(0)
    assert.equal(redraws, 2)
    assert.equal(strip(answerBlock.render(60)).trim(), 'the start and the whole rest')
    assert.match(
      strip(userBlock.render(60)),
      /… cut here \(99 bytes in all\): the rest could not be read: the daemon went away/,
    )
  })
})

describe('the login screen', () => {
  it('shows a long URL whole, its rows one OSC 8 link to the whole address', () => {
    const url = `https://auth.example.test/oauth/authorize?${'state=abc&'.repeat(20)}end=1`
    const rows = urlRows(url, 37)
    assert.equal(rows.length, Math.ceil(url.length / 37))
    const link = /^\x1b\]8;id=([\w-]+);([^\x1b]+)\x1b\\(.*)\x1b\]8;;\x1b\\$/
    const ids = new Set<string>()
    let shown = ''
    for (const row of rows) {
      const m = link.exec(row)
      assert.ok(m, JSON.stringify(row))
      ids.add(m[1])
      assert.equal(m[2], url, 'each row links to the whole address')
      assert.ok(visibleWidth(row) <= 37)
      shown += m[3]
    }
    assert.equal(ids.size, 1, 'one link id: the terminal joins the rows')
    assert.equal(shown, url, 'every character shown')
  })
})
