// The transcript of a long session is paged, never held whole: a real daemon holds a
// 10,000-entry session (one real turn, then entries written into its state.db while it is
// stopped), and the chat screen with its session link reads it through the history API as
// PageUp walks to the first entry and PageDown back to the newest. The entries held stay
// within a few pages all along, and the window never jumps.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import Database from 'better-sqlite3'
import { HearthClient } from '../../src/client/client.ts'
import { ChatScreen } from '../../src/tui/chat-screen.ts'
import type { TUI } from '../../src/tui/pi.ts'
import { SessionLink } from '../../src/tui/session-link.ts'
import { makeTheme } from '../../src/tui/theme.ts'
import { Transcript } from '../../src/tui/transcript.ts'
import { idle, message, putInput, type Setup, startWithUpstream, waitSession } from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'

const ENTRIES = 10_000
const ROWS = 60
const WIDTH = 80
const PAGE_UP = '\x1b[5~'
const PAGE_DOWN = '\x1b[6~'
const plain = makeTheme(false)

/** Writes `count` more entries after the session's last: a user message and its answer per turn. */
function writeEntries(home: string, sessionId: string, count: number): number {
  const db = new Database(join(home, 'state.db'))
  try {
    const last = db
      .prepare('SELECT MAX(position) AS position, MAX(grp) AS grp FROM entries WHERE session_id = ?')
      .get(sessionId) as { position: number; grp: number }
    const insert = db.prepare(
      'INSERT INTO entries (session_id, position, grp, kind, created_at, content) VALUES (?, ?, ?, ?, ?, ?)',
    )
    const at = new Date().toISOString()
    db.transaction(() => {
      for (let i = 1; i <= count; i++) {
        const position = last.position + i
        const grp = last.grp + Math.ceil(i / 2)
        const content =
          i % 2 === 1
            ? { text: `question #${position}`, images: [], input_id: null, client_id: null }
            : { text: `answer #${position}`, status: 'complete', run_id: null, tool_calls: [] }
        insert.run(sessionId, position, grp, i % 2 === 1 ? 'user' : 'assistant', at, JSON.stringify(content))
      }
      db.prepare('UPDATE sessions SET transcript_count = ? WHERE id = ?').run(
        last.position + count,
        sessionId,
      )
    })()
    return last.position + count
  } finally {
    db.close()
  }
}

/** The entry numbers (`#N`) on a screen, top to bottom. */
const numbersOn = (lines: string[]) =>
  lines.flatMap((l) => [...l.matchAll(/#(\d+)/g)].map((m) => Number(m[1])))

describe('a 10,000-entry session in the chat screen', () => {
  let s: Setup
  let sessionId: string
  let newest: number

  before(async () => {
    s = await startWithUpstream()
    sessionId = await createSession(s.d)
    s.upstream.enqueue({ text: ['the first answer'] })
    await putInput(s.d, sessionId, message('the first question'))
    await waitSession(s.d, sessionId, (x) => idle(x) && x.input_order === 1)
    const home = s.d.home
    await s.d.stop()
    newest = writeEntries(home, sessionId, ENTRIES)
    s = await startWithUpstream({ home, upstream: s.upstream })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })

  it('holds a bounded number of entries while scrolling to the first entry and back', async () => {
    const transcript = new Transcript(plain)
    const link = new SessionLink(() => HearthClient.fromHome(s.d.home), transcript)
    const fakeTui = { requestRender() {}, terminal: { rows: ROWS, columns: WIDTH } } as unknown as TUI
    const screen = new ChatScreen({
      tui: fakeTui,
      link,
      theme: plain,
      workspace: s.d.home,
      rows: () => ROWS,
      quit: () => {},
    })
    await link.open(sessionId)
    /** Draws a frame, lets the page reads it started finish, and draws again. */
    const frame = async () => {
      screen.render(WIDTH)
      while (link.loading) await sleep(2)
      return screen.render(WIDTH)
    }
    let lines = await frame()
    assert.ok(numbersOn(lines).includes(newest), 'the newest entry at first')
    // Four pages of 50 entries (a page may run to the end of its turn): far below 10,000.
    const limit = 300
    let most = transcript.heldEntries
    let top = Math.min(...numbersOn(lines))

    // Up to the first entry: the numbers shown only go down, by less than a screen a key.
    for (let i = 0; i < 2000 && !lines.some((l) => l.includes('the first question')); i++) {
      screen.handleInput(PAGE_UP)
      lines = await frame()
      most = Math.max(most, transcript.heldEntries)
      const shown = numbersOn(lines)
      if (shown.length > 0) {
        const now = Math.min(...shown)
        assert.ok(now <= top && top - now < ROWS, `up from #${top} to #${now}`)
        top = now
      }
    }
    assert.ok(
      lines.some((l) => l.includes('the first question')),
      'the first entry reached',
    )
    assert.equal(transcript.firstPosition, 1)
    assert.equal(transcript.atEnd, false, 'the newest pages were dropped on the way')
    assert.ok(most <= limit, `held ${most} entries at most (limit ${limit})`)

    // Back down to the newest: the pages dropped are read again.
    let bottom = Math.max(...numbersOn(lines), 0)
    for (let i = 0; i < 2000 && !(transcript.atEnd && numbersOn(lines).includes(newest)); i++) {
      screen.handleInput(PAGE_DOWN)
      lines = await frame()
      most = Math.max(most, transcript.heldEntries)
      const shown = numbersOn(lines)
      if (shown.length > 0) {
        const now = Math.max(...shown)
        assert.ok(now >= bottom && now - bottom < ROWS, `down from #${bottom} to #${now}`)
        bottom = now
      }
    }
    assert.ok(numbersOn(lines).includes(newest), 'the newest entry reached again')
    assert.equal(transcript.atEnd, true)
    assert.ok(most <= limit, `held ${most} entries at most (limit ${limit})`)
    assert.ok(transcript.blocks.length <= limit)
    link.close()
  })
})
