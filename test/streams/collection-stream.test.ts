// The collection stream (GET /sessions, Accept: text/event-stream) against the real daemon:
// a `ready` frame, then one `session.invalidated` frame per creation, change or deletion in
// the stream's scope; parameter errors; and a slow reader's overflow.
import assert from 'node:assert/strict'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { startDaemon, type TestDaemon } from '../helpers/daemon.ts'
import {
  configure,
  createSession,
  deleteLeaf,
  openSse,
  type SseFrame,
  type SseStream,
  visit,
} from './sse-client.ts'

let d: TestDaemon
const open: SseStream[] = []

before(async () => {
  d = await startDaemon()
})
after(async () => {
  for (const s of open) s.destroy()
  assert.equal(await d.stop(), 0)
})

async function subscribe(query = '', opts: Parameters<typeof openSse>[2] = {}): Promise<SseStream> {
  const s = openSse(d, `/sessions${query}`, opts)
  open.push(s)
  const ready = await s.next()
  assert.equal(s.status, 200, s.body)
  assert.deepEqual(ready, { event: 'ready', data: '{}' })
  return s
}

type Invalidation = [string, 'created' | 'changed' | 'deleted']

async function invalidations(s: SseStream, n: number): Promise<Invalidation[]> {
  const out: Invalidation[] = []
  while (out.length < n) {
    const f = (await s.next()) as SseFrame
    assert.ok(f, `stream ended after ${out.length} of ${n} invalidations`)
    assert.equal(f.event, 'session.invalidated')
    assert.equal(f.id, undefined, 'no cursor: invalidation frames carry no id')
    const data = JSON.parse(f.data)
    assert.deepEqual(Object.keys(data).sort(), ['reason', 'session_id'])
    out.push([data.session_id, data.reason])
  }
  return out
}

const child = (parentId: string) => ({ kind: 'child', parent_id: parentId })

/** The most a TCP socket's send buffer grows to (Linux), 4 MiB when unknown. */
function sendBufferMax(): number {
  try {
    const max = Number(readFileSync('/proc/sys/net/ipv4/tcp_wmem', 'utf8').trim().split(/\s+/)[2])
    return Number.isSafeInteger(max) && max > 0 ? max : 4 * 1024 * 1024
  } catch {
    return 4 * 1024 * 1024
  }
}

describe('collection stream', () => {
  test('a roots stream sees creations, changes and deletions of roots, never of children', async () => {
    const roots = await subscribe()
    const a = await createSession(d)
    assert.deepEqual(await invalidations(roots, 1), [[a, 'created']])
    await visit(d, a)
    await configure(d, a, { name: 'first' })
    assert.deepEqual(await invalidations(roots, 2), [
      [a, 'changed'],
      [a, 'changed'],
    ])

    // A child's creation, change and deletion are outside the roots scope: the next frame
    // is the root's own change that follows them.
    const c = await createSession(d, child(a))
    await visit(d, c)
    await deleteLeaf(d, c)
    await visit(d, a)
    assert.deepEqual(await invalidations(roots, 1), [[a, 'changed']])

    await deleteLeaf(d, a)
    assert.deepEqual(await invalidations(roots, 1), [[a, 'deleted']])
  })

  test('family_id and parent_id streams see the family members, children included', async () => {
    const a = await createSession(d)
    const other = await createSession(d)
    const family = await subscribe(`?family_id=${a}`)
    const children = await subscribe(`?parent_id=${a}`)
    const roots = await subscribe('?scope=roots')

    const c = await createSession(d, child(a))
    assert.deepEqual(await invalidations(family, 1), [[c, 'created']])
    assert.deepEqual(await invalidations(children, 1), [[c, 'created']])
    const g = await createSession(d, child(c)) // a grandchild: in the family, not a child of a
    assert.deepEqual(await invalidations(family, 1), [[g, 'created']])

    await visit(d, other) // another family: roots only
    await visit(d, a) // the root: family and roots, not children
    await visit(d, g)
    await deleteLeaf(d, g)
    await configure(d, c, { name: 'child' })
    await deleteLeaf(d, c)
    assert.deepEqual(await invalidations(family, 5), [
      [a, 'changed'],
      [g, 'changed'],
      [g, 'deleted'],
      [c, 'changed'],
      [c, 'deleted'],
    ])
    assert.deepEqual(await invalidations(children, 2), [
      [c, 'changed'],
      [c, 'deleted'],
    ])
    assert.deepEqual(await invalidations(roots, 2), [
      [other, 'changed'],
      [a, 'changed'],
    ])
  })

  test('an archived filter sees a session move into and out of its scope', async () => {
    const a = await createSession(d)
    const b = await createSession(d)
    const archived = await subscribe('?archived=true')
    await visit(d, b) // not archived: out of scope
    await configure(d, a, { preferences: { archived: true } }) // enters the scope
    await visit(d, a)
    await configure(d, a, { preferences: { archived: false } }) // leaves it
    await visit(d, a) // out of scope again
    await configure(d, b, { preferences: { archived: true } })
    assert.deepEqual(await invalidations(archived, 4), [
      [a, 'changed'],
      [a, 'changed'],
      [a, 'changed'],
      [b, 'changed'],
    ])
  })

  test('sort, limit and next are 400; so are bad scopes; an unknown parent is 404', async () => {
    const a = await createSession(d)
    const status = async (query: string) => {
      const r = await d.request({ path: `/sessions${query}`, headers: { accept: 'text/event-stream' } })
      assert.match(String(r.headers['content-type']), /problem\+json/)
      return [r.status, r.json().code]
    }
    for (const q of ['?sort=activity', '?sort=frequent', '?limit=5', '?next=abc']) {
      assert.equal((await status(q))[0], 400, q)
    }
    assert.deepEqual(await status(`?parent_id=${a}&family_id=${a}`), [400, 'invalid_scope'])
    assert.deepEqual(await status(`?scope=roots&family_id=${a}`), [400, 'invalid_scope'])
    assert.equal((await status('?parent_id=01a20000-0000-7000-8000-000000000000'))[0], 404)
  })

  test('a reader that stops reading gets overflow and the stream closes', async () => {
    // Workspace moves change every member of a family at once: many invalidations fast.
    const root = await createSession(d)
    const members = [root]
    for (let i = 0; i < 199; i++) members.push(await createSession(d, child(members[Math.floor(i / 4)])))
    const away = join(d.home, 'elsewhere')
    mkdirSync(away, { recursive: true })

    const family = openSse(d, `/sessions?family_id=${root}`)
    open.push(family)
    assert.equal((await family.next())?.event, 'ready')
    family.pause()
    const started = Date.now()
    // The kernel takes a paused socket's first megabytes (Linux grows the send buffer up to
    // net.ipv4.tcp_wmem's maximum, 4 MiB by default): ~100-byte frames by the ten thousand
    // before the daemon's queue (1024 frames) starts to fill.
    const frames = Math.ceil(sendBufferMax() / 90) + 5_000
    const moves = Math.ceil(frames / members.length)
    for (let i = 0; i < moves; i++) {
      const cur = await d.request({ path: `/sessions/${root}?view=configuration` })
      const r = await d.request({
        method: 'PATCH',
        path: `/sessions/${root}?view=configuration`,
        headers: { 'content-type': 'application/merge-patch+json', 'if-match': String(cur.headers.etag) },
        body: JSON.stringify({
          workspace: i % 2 === 0 ? away : d.home,
          family_revision: cur.json().value.family_revision,
        }),
      })
      assert.equal(r.status, 200, r.text())
    }
    // The daemon keeps serving, and other streams are unaffected.
    const roots = await subscribe()
    await visit(d, root)
    assert.deepEqual(await invalidations(roots, 1), [[root, 'changed']])

    family.resume()
    const rest = await family.waitEnd(20_000)
    const last = rest.at(-1) as SseFrame
    assert.equal(last.event, 'overflow')
    assert.deepEqual(JSON.parse(last.data), { reason: 'slow_reader', queued_limit: 1024 })
    const delivered = rest.slice(0, -1)
    assert.ok(delivered.every((f) => f.event === 'session.invalidated'))
    assert.ok(delivered.length < moves * members.length, `${delivered.length} delivered`)
    console.log(
      `# ${delivered.length} of ${moves * members.length} invalidations reached the paused reader before the overflow frame (${Date.now() - started} ms)`,
    )
  })
})
