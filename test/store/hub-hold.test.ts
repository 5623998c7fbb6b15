// The hub's holds: what is published while a commit is not yet durable waits, in commit
// order, and holds release in the order they were taken.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Hub } from '../../src/sessions/hub.ts'
import type { CollectionChange, LogEvent } from '../../src/sessions/types.ts'

const event = (seq: number) => ({ session_id: 's', seq, kind: `e${seq}` }) as unknown as LogEvent
const change = (id: string) => ({ session_id: id, reason: 'changed' }) as unknown as CollectionChange

describe('hub holds', () => {
  it('delivers what was held once released, in order, events before their changes', async () => {
    const hub = new Hub()
    const heard: string[] = []
    hub.subscribe('s', { onEvent: (e) => heard.push(e.kind), onDeleted: () => {} })
    hub.subscribeCollection((c) => heard.push(`c:${c.session_id}`))
    hub.publish([event(1)], [])
    assert.deepEqual(heard, ['e1'])
    const release = hub.hold()
    hub.publish([event(2)], [change('a')])
    hub.publish([event(3)], [change('b')])
    assert.deepEqual(heard, ['e1'])
    const settled = hub.settled()
    assert.ok(settled)
    release()
    release() // twice is once
    assert.deepEqual(heard, ['e1', 'e2', 'c:a', 'e3', 'c:b'])
    await settled
    assert.equal(hub.settled(), undefined)
    hub.publish([event(4)], [])
    assert.deepEqual(heard.at(-1), 'e4')
  })

  it('a later hold released first waits for the earlier one', async () => {
    const hub = new Hub()
    const heard: string[] = []
    hub.subscribe('s', { onEvent: (e) => heard.push(e.kind), onDeleted: () => {} })
    const first = hub.hold()
    hub.publish([event(1)], [])
    const second = hub.hold()
    hub.publish([event(2)], [])
    let settledSecond = false
    void hub.settled()?.then(() => {
      settledSecond = true
    })
    second()
    await Promise.resolve()
    assert.deepEqual(heard, [])
    assert.equal(settledSecond, false)
    first()
    assert.deepEqual(heard, ['e1', 'e2'])
    await hub.settled()
    await new Promise((r) => setImmediate(r))
    assert.equal(settledSecond, true)
  })
})
