// `hearth chat` follows its session on one stream: a second line goes out on the stream the
// first one opened, never on a new GET /sessions/{id} stream. The daemon's debug log names
// every session stream it serves.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { logLines, runCli, until } from '../helpers/daemon.ts'
import { type Setup, startWithUpstream } from '../inputs/helpers.ts'
import { openSse } from '../streams/sse-client.ts'

const streamsOpened = (home: string) =>
  logLines(home, 'session stream opened').map((l) => l.session_id as string)

describe('hearth chat and the session stream', () => {
  let s: Setup
  before(async () => {
    s = await startWithUpstream({ env: { HEARTH_LOG_LEVEL: 'debug' } })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })

  it('answers three lines of one session on one stream', async () => {
    s.upstream.enqueue({ text: ['one.'] }, { text: ['two.'] }, { text: ['three.'] })
    const r = await runCli(['chat', '--home', s.d.home, '--workspace', s.d.home], {}, { stdin: 'a\nb\nc\n' })
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /one\.\n[\s\S]*two\.\n[\s\S]*three\.\n/)
    const sessionId = /session ([0-9a-f-]{36})/.exec(r.stdout)?.[1]
    assert.ok(sessionId, r.stdout)
    assert.deepEqual(streamsOpened(s.d.home), [sessionId], 'one stream for the three lines')

    // The count is real: another stream of the session is logged as it is served.
    const other = openSse(s.d, `/sessions/${sessionId}`)
    await other.opened
    await until('the second stream in the log', () => streamsOpened(s.d.home).length === 2)
    other.req.destroy()
  })
  it('a line whose run fails is reported, and the next line answers on the same stream', async () => {
    const before = streamsOpened(s.d.home).length
    s.upstream.failTimes(1, 401, { message: 'bad key' })
    s.upstream.enqueue({ text: ['after the failure.'] })
    const r = await runCli(['chat', '--home', s.d.home, '--workspace', s.d.home], {}, { stdin: 'a\nb\n' })
    assert.match(r.stderr, /upstream_unauthorized/)
    assert.match(r.stdout, /after the failure\.\n/)
    const sessionId = /session ([0-9a-f-]{36})/.exec(r.stdout)?.[1]
    assert.deepEqual(streamsOpened(s.d.home).slice(before), [sessionId], 'still one stream')
  })
})
