// `hearth send` and `hearth chat` against a real daemon whose profile is a fake upstream.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { runCli } from '../helpers/daemon.ts'
import { type Setup, startWithUpstream } from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'

describe('hearth send and chat', () => {
  let s: Setup
  before(async () => {
    s = await startWithUpstream()
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })

  it('send prints the streamed answer and exits 0', async () => {
    const sid = await createSession(s.d)
    s.upstream.enqueue({ text: ['Streamed ', 'reply.'], delayMs: 5 })
    const r = await runCli(['send', sid, 'hello', 'there', '--home', s.d.home])
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout, 'Streamed reply.\n')
    assert.match(JSON.stringify(s.upstream.requests.at(-1)?.body.input), /hello there/)
  })

  it('send exits 1 with the problem when the turn fails', async () => {
    const sid = await createSession(s.d)
    s.upstream.failTimes(1, 401, { message: 'bad key' })
    const r = await runCli(['send', sid, 'hi', '--home', s.d.home])
    assert.equal(r.code, 1)
    assert.match(r.stderr, /upstream_unauthorized/)
  })

  it('send --json writes the frames of its run, one JSON line each, the run.ended last', async () => {
    const sid = await createSession(s.d)
    s.upstream.enqueue({ text: ['Streamed ', 'reply.'], delayMs: 5 })
    const r = await runCli(['send', sid, 'hello', '--json', '--home', s.d.home])
    assert.equal(r.code, 0, r.stderr)
    const frames = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l))
    for (const f of frames) assert.deepEqual(Object.keys(f), ['event', 'id', 'data'])
    const events = frames.map((f) => f.event)
    assert.equal(events[0], 'input.accepted')
    assert.equal(events.at(-1), 'run.ended')
    for (const e of ['run.started', 'output.started', 'output.delta', 'entry.added'])
      assert.ok(events.includes(e), `${e} in ${events.join(' ')}`)
    const runId = frames[1].data.payload.run_id
    assert.equal(frames.at(-1).data.payload.run_id, runId)
    assert.equal(frames.at(-1).data.payload.outcome, 'completed')
    const text = frames
      .filter((f) => f.event === 'output.delta')
      .map((f) => f.data.payload.delta)
      .join('')
    assert.equal(text, 'Streamed reply.')

    s.upstream.failTimes(1, 401, { message: 'bad key' })
    const failed = await runCli(['send', sid, 'again', '--json', '--home', s.d.home])
    assert.equal(failed.code, 1)
    const last = JSON.parse(failed.stdout.trimEnd().split('\n').at(-1) as string)
    assert.equal(last.event, 'run.ended')
    assert.equal(last.data.payload.outcome, 'failed')
    assert.match(failed.stderr, /upstream_unauthorized/)
  })

  it('send to an unknown session exits 1 naming the code; no text is usage (2)', async () => {
    const r = await runCli(['send', '01900000-0000-7000-8000-000000000000', 'hi', '--home', s.d.home])
    assert.equal(r.code, 1)
    assert.match(r.stderr, /session_not_found/)
    assert.equal((await runCli(['send', '--home', s.d.home])).code, 2)
  })

  it('chat answers each line in a new session of the given workspace', async () => {
    const { code, stdout } = await runCli(
      ['chat', '--home', s.d.home, '--workspace', s.d.home],
      {},
      {
        stdin: 'first line\nsecond line\n',
      },
    )
    assert.equal(code, 0)
    assert.match(stdout, /^> session [0-9a-f-]{36} \(fake fake-model\)\n/)
    assert.equal(stdout.match(/Hello, world!/g)?.length, 2)
  })
})
