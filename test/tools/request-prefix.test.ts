// The request of a step is built from the history, reusing the messages the session's last
// request built (entries never change once committed). What it sends must be exactly what a
// build from nothing sends: after a restart (nothing kept), the next request starts with the
// very messages the last request built incrementally, with calls, results and reasoning
// replay among them.
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { answer, callTools } from '../fakes/tool-script.ts'
import { startDaemon } from '../helpers/daemon.ts'
import { agentPerSuite, newSession, runMessage } from './agent-helpers.ts'

describe('a step request built on the last one', () => {
  const agent = agentPerSuite({ tools: { approval_policy: 'auto' } })

  it('equals the request built from the whole history', async () => {
    const s = agent()
    writeFileSync(join(s.workspace, 'a.txt'), 'AAA\n')
    writeFileSync(join(s.workspace, 'b.txt'), 'BBB\n')
    const sid = await newSession(s)
    s.upstream.enqueue(
      callTools({ name: 'read', arguments: { path: 'a.txt' } }, { text: 'First a.' }),
      callTools(
        { name: 'read', arguments: { path: 'b.txt' } },
        { name: 'read', arguments: { path: 'missing.txt' } },
      ),
      answer('Both read.'),
      callTools({ name: 'read', arguments: { path: 'a.txt' } }),
      answer('Again.'),
    )
    await runMessage(s, sid, 'read a then b')
    await runMessage(s, sid, 'read a again')
    const built = s.upstream.requests.map((r) => r.body.input as unknown[])
    assert.equal(built.length, 5)
    // Each request of the session starts with the whole previous one.
    for (let i = 1; i < built.length; i++)
      assert.deepEqual(built[i].slice(0, built[i - 1].length), built[i - 1])

    // A new daemon keeps nothing: its first request is built from the whole history.
    await s.d.stop()
    s.d = await startDaemon({ home: s.home })
    s.upstream.enqueue(answer('Fresh.'))
    await runMessage(s, sid, 'and now?')
    const fresh = s.upstream.requests.at(-1)?.body.input as unknown[]
    const last = built.at(-1) as unknown[]
    assert.deepEqual(fresh.slice(0, last.length), last)
    // Then the last answer and the new message, nothing else.
    assert.equal(fresh.length, last.length + 2)
  })
})
