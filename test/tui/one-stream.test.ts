// The full-screen client follows a session on one stream: a second message in the same
// session goes out on the stream already open, never on a new GET /sessions/{id} stream
// (each one costs the next message a snapshot before its first token). The daemon's debug
// log names every session stream it serves, in tmux against a real daemon.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { BIN, logLines, until } from '../helpers/daemon.ts'
import { Tmux } from '../helpers/tmux.ts'
import { type Setup, startWithUpstream } from '../inputs/helpers.ts'
import { openSse } from '../streams/sse-client.ts'

const ready = (screen: string) => /idle · .*fake-model/.test(screen) && screen.includes('──────')
const streamsOpened = (home: string) =>
  logLines(home, 'session stream opened').map((l) => l.session_id as string)

describe('the full-screen client and the session stream', () => {
  let s: Setup
  let t: Tmux | undefined

  before(async () => {
    s = await startWithUpstream({ env: { HEARTH_LOG_LEVEL: 'debug' } })
  })
  after(async () => {
    t?.kill()
    await s.d.stop()
    await s.upstream.close()
  })

  it('sends a second message of a session without opening its stream again', async () => {
    s.upstream.enqueue({ text: ['the first answer'] }, { text: ['the second answer'] })
    t = Tmux.start([process.execPath, BIN, '--home', s.d.home], { columns: 80, rows: 24, cwd: s.d.home })
    await t.waitFor(ready, 'the prompt')
    t.type('first message')
    t.keys('Enter')
    await t.waitFor((x) => x.includes('the first answer') && ready(x), 'the first answer')
    const [sessionId] = await until('the stream of the new session', () => {
      const ids = streamsOpened(s.d.home)
      return ids.length > 0 && ids
    })
    t.type('second message')
    t.keys('Enter')
    await t.waitFor((x) => x.includes('the second answer') && ready(x), 'the second answer')
    assert.deepEqual(streamsOpened(s.d.home), [sessionId], 'one stream for both messages')

    // The count is real: another stream of the session is logged as it is served.
    const other = openSse(s.d, `/sessions/${sessionId}`)
    await other.opened
    await until('the second stream in the log', () => streamsOpened(s.d.home).length === 2)
    other.req.destroy()
  })
})
