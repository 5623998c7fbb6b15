// Operations that require If-Match take only the ETag the client read: `*` matches any
// version, so it would let a change overwrite one the client never saw. It is 428
// precondition_required, as no If-Match is, and changes nothing; the read ETag works.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type RawResponse, startDaemon, type TestDaemon } from '../helpers/daemon.ts'
import { createSession } from '../streams/sse-client.ts'
import { assertProblem } from './hostile.ts'

const PATCH = 'application/merge-patch+json'

describe('If-Match: * where a validator is required', () => {
  let d: TestDaemon
  before(async () => {
    d = await startDaemon()
  })
  after(async () => {
    await d.stop()
  })

  /** Sends the request with If-Match `*`, then with the ETag; the first is 428, the second `status`. */
  async function starThenEtag(
    req: { method: string; path: string; body?: unknown },
    etag: string,
    status: number,
  ): Promise<RawResponse> {
    const send = (ifMatch: string) =>
      d.request({
        method: req.method,
        path: req.path,
        headers: { 'if-match': ifMatch, ...(req.body ? { 'content-type': PATCH } : {}) },
        ...(req.body ? { body: JSON.stringify(req.body) } : {}),
      })
    for (const star of ['*', `${etag}, *`]) {
      const p = assertProblem(await send(star), 428, 'precondition_required')
      assert.match(String(p.detail), /If-Match: \* is not a validator/)
    }
    const res = await send(etag)
    assert.equal(res.status, status, res.text())
    return res
  }

  it('settings: PATCH of a group', async () => {
    const read = await d.request({ path: '/settings?group=ui' })
    const etag = String(read.headers.etag)
    await starThenEtag({ method: 'PATCH', path: '/settings?group=ui', body: { theme: null } }, etag, 200)
  })

  it('sessions: PATCH and DELETE of the configuration', async () => {
    const id = await createSession(d)
    const url = `/sessions/${id}?view=configuration`
    const etagOf = async () => String((await d.request({ path: url })).headers.etag)
    await starThenEtag({ method: 'PATCH', path: url, body: { name: 'named' } }, await etagOf(), 200)
    assert.equal((await d.request({ path: `/sessions/${id}` })).json().name, 'named')
    await starThenEtag({ method: 'DELETE', path: url }, await etagOf(), 200)
  })

  it('work items: PATCH and DELETE', async () => {
    const q = `?workspace=${encodeURIComponent(d.home)}`
    const made = await d.request({
      method: 'POST',
      path: `/extensions/work/items${q}`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'a task' }),
    })
    assert.equal(made.status, 201, made.text())
    const path = `${String(made.headers.location).split('?')[0]}${q}`
    const etagOf = async () => String((await d.request({ path })).headers.etag)
    await starThenEtag({ method: 'PATCH', path, body: { title: 'renamed' } }, await etagOf(), 200)
    assert.equal((await d.request({ path })).json().title, 'renamed')
    await starThenEtag({ method: 'DELETE', path }, await etagOf(), 200)
  })
})
