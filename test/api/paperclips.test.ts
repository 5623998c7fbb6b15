// Extension `paperclips` over HTTP against a real daemon: clips newest first in pages,
// reads, deletion, refusals, kill -9 after an answered clip, and the routes vanishing when
// the extension is turned off.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { v7 as uuidv7 } from 'uuid'
import { type RawResponse, startDaemon, type TestDaemon } from '../helpers/daemon.ts'
import { change } from '../settings/helpers.ts'
import { createSession } from '../streams/sse-client.ts'

const ITEMS = '/extensions/paperclips/items'

function clip(d: TestDaemon, body: unknown): Promise<RawResponse> {
  return d.request({
    method: 'POST',
    path: ITEMS,
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

function problem(r: RawResponse, status: number, code: string): void {
  assert.equal(r.status, status, r.text())
  assert.equal(r.json().code, code, r.text())
}

describe('paperclips', () => {
  let d: TestDaemon
  before(async () => {
    d = await startDaemon()
  })
  after(async () => {
    await d.stop()
  })

  it('clips a text, reads it at its location and lists it newest first', async () => {
    const sid = await createSession(d)
    const first = await clip(d, { text: 'npm ci && npm test', label: 'tests' })
    assert.equal(first.status, 201, first.text())
    const second = await clip(d, { text: 'ls -la', workspace: `${d.home}/./`, session_id: sid.toUpperCase() })
    const value = second.json().resource.value
    assert.equal(value.workspace, d.home, 'the workspace is normalised')
    assert.equal(value.session_id, sid)
    assert.equal(value.label, null)
    assert.equal(second.headers.location, second.json().resource.url)
    const read = await d.request({ path: second.headers.location as string })
    assert.deepEqual(read.json(), value)
    const list = (await d.request({ path: ITEMS })).json()
    assert.deepEqual(
      list.items.map((c: { text: string }) => c.text),
      ['ls -la', 'npm ci && npm test'],
    )
    assert.equal(list.next, null)
  })

  it('pages newest first', async () => {
    const texts = ['one', 'two', 'three'].map((t) => `page-${t}`)
    for (const text of texts) assert.equal((await clip(d, { text })).status, 201)
    const first = (await d.request({ path: `${ITEMS}?limit=2` })).json()
    assert.deepEqual(
      first.items.map((c: { text: string }) => c.text),
      ['page-three', 'page-two'],
    )
    const second = (await d.request({ path: `${ITEMS}?limit=2&next=${first.next}` })).json()
    assert.equal(second.items[0].text, 'page-one')
    problem(await d.request({ path: `${ITEMS}?next=${first.next}x` }), 400, 'invalid_continuation')
  })

  it('deletes a clip once', async () => {
    const id = (await clip(d, { text: 'temporary' })).json().resource.value.id
    const gone = await d.request({ method: 'DELETE', path: `${ITEMS}/${id}` })
    assert.equal(gone.status, 200, gone.text())
    assert.equal(gone.json().id, id)
    problem(await d.request({ path: `${ITEMS}/${id}` }), 404, 'paperclip_not_found')
    problem(await d.request({ method: 'DELETE', path: `${ITEMS}/${id}` }), 404, 'paperclip_not_found')
  })

  it('refuses bad clips and writes nothing', async () => {
    const before = (await d.request({ path: `${ITEMS}?limit=200` })).json().items.length
    problem(await clip(d, { text: '' }), 400, 'invalid_request')
    problem(await clip(d, { text: 'x'.repeat(65_537) }), 400, 'invalid_request')
    problem(await clip(d, { text: 'x', colour: 1 }), 400, 'unknown_field')
    problem(await clip(d, '{"text":"a","text":"b"}'), 400, 'duplicate_key')
    problem(await clip(d, { text: 'x', workspace: 'relative' }), 400, 'workspace_not_absolute')
    problem(await clip(d, { text: 'x', session_id: uuidv7() }), 404, 'session_not_found')
    problem(await clip(d, { text: 'x', session_id: 'nope' }), 400, 'invalid_request')
    problem(await d.request({ path: `${ITEMS}/nope` }), 400, 'invalid_id')
    problem(await d.request({ path: `${ITEMS}/${uuidv7()}` }), 404, 'paperclip_not_found')
    assert.equal((await d.request({ path: `${ITEMS}?limit=200` })).json().items.length, before)
  })
})

describe('paperclips: durability and the extension switch', () => {
  it('an answered clip survives kill -9; turned off, the routes answer 404', async () => {
    let d = await startDaemon()
    const id = (await clip(d, { text: 'keep me' })).json().resource.value.id
    await d.stop('SIGKILL')
    d = await startDaemon({ home: d.home })
    try {
      assert.equal((await d.request({ path: `${ITEMS}/${id}` })).json().text, 'keep me')
      await change(d, 'extensions', { extensions: { paperclips: { enabled: false } } })
      problem(await d.request({ path: ITEMS }), 404, 'not_found')
      problem(await clip(d, { text: 'no' }), 404, 'not_found')
    } finally {
      await d.stop()
    }
  })
})
