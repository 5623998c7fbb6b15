// Extension `work` over HTTP against a real daemon: items per workspace, validators, merge
// patches, links (parent, session, run), paging, deletion with a note for a session that
// the model reads at that session's next turn, durability across kill -9, and the routes
// vanishing when the extension is turned off.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import Database from 'better-sqlite3'
import { v7 as uuidv7 } from 'uuid'
import type { FakeOpenAIUpstream } from '../fakes/openai-upstream.ts'
import { type RawResponse, startDaemon, type TestDaemon } from '../helpers/daemon.ts'
import {
  idle,
  message,
  putInput,
  startWithUpstream,
  upstreamRequests,
  waitSession,
} from '../inputs/helpers.ts'
import { change } from '../settings/helpers.ts'
import { createSession } from '../streams/sse-client.ts'

const items = (workspace: string, extra = '') =>
  `/extensions/work/items?workspace=${encodeURIComponent(workspace)}${extra}`
const item = (workspace: string, id: string, extra = '') =>
  `/extensions/work/items/${id}?workspace=${encodeURIComponent(workspace)}${extra}`

function create(d: TestDaemon, workspace: string, body: unknown): Promise<RawResponse> {
  return d.request({
    method: 'POST',
    path: items(workspace),
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

function patch(d: TestDaemon, workspace: string, id: string, etag: string | undefined, body: unknown) {
  return d.request({
    method: 'PATCH',
    path: item(workspace, id),
    headers: {
      'content-type': 'application/merge-patch+json',
      ...(etag === undefined ? {} : { 'if-match': etag }),
    },
    body: JSON.stringify(body),
  })
}

function remove(d: TestDaemon, workspace: string, id: string, etag: string | undefined, extra = '') {
  return d.request({
    method: 'DELETE',
    path: item(workspace, id, extra),
    headers: etag === undefined ? {} : { 'if-match': etag },
  })
}

function problem(r: RawResponse, status: number, code: string): void {
  assert.equal(r.status, status, r.text())
  assert.match(String(r.headers['content-type']), /application\/problem\+json/)
  assert.equal(r.json().code, code, r.text())
}

async function made(d: TestDaemon, workspace: string, body: unknown): Promise<{ id: string; etag: string }> {
  const r = await create(d, workspace, body)
  assert.equal(r.status, 201, r.text())
  return { id: r.json().resource.value.id, etag: r.json().resource.etag }
}

describe('work items', () => {
  let s: { d: TestDaemon; upstream: FakeOpenAIUpstream }
  let ws: string
  let other: string
  before(async () => {
    s = await startWithUpstream()
    ws = mkdtempSync(join(s.d.home, 'ws-'))
    other = mkdtempSync(join(s.d.home, 'other-'))
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })

  it('creates, reads and lists an item with its validator and location', async () => {
    const r = await create(s.d, ws, { title: 'Write the parser', notes: 'streaming' })
    assert.equal(r.status, 201, r.text())
    const body = r.json()
    assert.deepEqual(body.notification, { state: 'not_requested', code: null, detail: null })
    const value = body.resource.value
    assert.match(value.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7/)
    assert.equal(value.workspace, ws)
    assert.equal(value.title, 'Write the parser')
    assert.equal(value.notes, 'streaming')
    assert.equal(value.status, 'open')
    assert.equal(value.revision, '1')
    assert.deepEqual([value.parent_id, value.session_id, value.run_id], [null, null, null])
    assert.equal(r.headers.location, body.resource.url)
    assert.equal(r.headers.etag, body.resource.etag)
    const got = await s.d.request({ path: body.resource.url })
    assert.equal(got.status, 200)
    assert.deepEqual(got.json(), value)
    assert.equal(got.headers.etag, body.resource.etag)
    const list = await s.d.request({ path: items(ws) })
    assert.ok(list.json().items.some((i: { id: string }) => i.id === value.id))
  })

  it('keeps workspaces apart: another workspace neither lists nor reads the item', async () => {
    const { id } = await made(s.d, ws, { title: 'mine' })
    problem(await s.d.request({ path: item(other, id) }), 404, 'work_item_not_found')
    assert.deepEqual(
      (await s.d.request({ path: items(other) })).json().items.map((i: { id: string }) => i.id),
      [],
    )
    // The same directory spelled with a trailing dot segment is the same workspace.
    assert.equal((await s.d.request({ path: item(`${ws}/.`, id) })).status, 200)
  })

  it('refuses bad workspaces and bodies without writing anything', async () => {
    problem(await create(s.d, 'relative/path', { title: 't' }), 400, 'workspace_not_absolute')
    problem(await create(s.d, join(ws, 'missing'), { title: 't' }), 400, 'workspace_not_found')
    const file = join(ws, 'file.txt')
    writeFileSync(file, 'x')
    problem(await create(s.d, file, { title: 't' }), 400, 'workspace_not_directory')
    const fresh = mkdtempSync(join(s.d.home, 'fresh-'))
    problem(await create(s.d, fresh, { title: '' }), 400, 'invalid_request')
    problem(await create(s.d, fresh, { title: 't', colour: 'red' }), 400, 'unknown_field')
    problem(await create(s.d, fresh, { title: 't', status: 'finished' }), 400, 'invalid_request')
    problem(await create(s.d, fresh, { title: 'x'.repeat(513) }), 400, 'invalid_request')
    const dup = await s.d.request({
      method: 'POST',
      path: items(fresh),
      headers: { 'content-type': 'application/json' },
      body: '{"title":"a","title":"b"}',
    })
    problem(dup, 400, 'duplicate_key')
    problem(await s.d.request({ path: items(fresh, '&colour=red') }), 400, 'unknown_parameter')
    problem(await s.d.request({ path: '/extensions/work/items' }), 400, 'invalid_parameter')
    problem(await s.d.request({ path: item(fresh, 'not-a-uuid') }), 400, 'invalid_id')
    assert.deepEqual((await s.d.request({ path: items(fresh) })).json(), { items: [], next: null })
  })

  it('patches with If-Match: 428 without, 412 when stale, read-only and unknown fields refused', async () => {
    const { id, etag } = await made(s.d, ws, { title: 'draft' })
    problem(await patch(s.d, ws, id, undefined, { title: 'x' }), 428, 'precondition_required')
    problem(await patch(s.d, ws, id, '"99"', { title: 'x' }), 412, 'precondition_failed')
    problem(await patch(s.d, ws, id, etag, { revision: '7' }), 400, 'read_only_field')
    problem(await patch(s.d, ws, id, etag, { id: uuidv7() }), 400, 'read_only_field')
    problem(await patch(s.d, ws, id, etag, { priority: 1 }), 400, 'unknown_field')
    const r = await patch(s.d, ws, id, etag, { status: 'in_progress', notes: 'started' })
    assert.equal(r.status, 200, r.text())
    const value = r.json().resource.value
    assert.equal(value.status, 'in_progress')
    assert.equal(value.notes, 'started')
    assert.equal(value.title, 'draft', 'absent fields are kept')
    assert.equal(value.revision, '2')
    assert.notEqual(r.headers.etag, etag)
    assert.ok(value.updated_at >= value.created_at)
    // The old validator no longer matches.
    problem(await patch(s.d, ws, id, etag, { title: 'late' }), 412, 'precondition_failed')
  })

  it('nests items: parent of the same workspace, no cycles, no deleting a parent', async () => {
    const top = await made(s.d, ws, { title: 'epic' })
    const mid = await made(s.d, ws, { title: 'story', parent_id: top.id })
    const leaf = await made(s.d, ws, { title: 'task', parent_id: mid.id })
    const foreign = await made(s.d, other, { title: 'elsewhere' })
    problem(await create(s.d, ws, { title: 't', parent_id: foreign.id }), 404, 'work_parent_not_found')
    problem(await create(s.d, ws, { title: 't', parent_id: uuidv7() }), 404, 'work_parent_not_found')
    problem(await patch(s.d, ws, top.id, top.etag, { parent_id: leaf.id }), 409, 'work_parent_cycle')
    problem(await patch(s.d, ws, top.id, top.etag, { parent_id: top.id }), 409, 'work_parent_cycle')
    problem(await remove(s.d, ws, mid.id, mid.etag), 409, 'work_item_has_children')
    // Moving the leaf to the top frees the story, which can then go.
    const moved = await patch(s.d, ws, leaf.id, leaf.etag, { parent_id: top.id })
    assert.equal(moved.json().resource.value.parent_id, top.id)
    const gone = await remove(s.d, ws, mid.id, mid.etag)
    assert.equal(gone.status, 200, gone.text())
    assert.deepEqual(gone.json().notification, { state: 'not_requested', code: null, detail: null })
    assert.equal(gone.json().resource.id, mid.id)
    problem(await s.d.request({ path: item(ws, mid.id) }), 404, 'work_item_not_found')
    // Clearing the parent with null.
    const etag = moved.json().resource.etag
    const cleared = await patch(s.d, ws, leaf.id, etag, { parent_id: null })
    assert.equal(cleared.json().resource.value.parent_id, null)
  })

  it('deletes only with the current validator', async () => {
    const { id, etag } = await made(s.d, ws, { title: 'to delete' })
    problem(await remove(s.d, ws, id, undefined), 428, 'precondition_required')
    problem(await remove(s.d, ws, id, '"0"'), 412, 'precondition_failed')
    assert.equal((await s.d.request({ path: item(ws, id) })).status, 200, 'still there')
    assert.equal((await remove(s.d, ws, id, etag)).status, 200)
    problem(await remove(s.d, ws, id, etag), 404, 'work_item_not_found')
  })

  it('links a session and one of its runs; refuses unknown ones', async () => {
    const sid = await createSession(s.d, { kind: 'new', workspace: ws })
    const r = await putInput(s.d, sid, message('hello'))
    assert.equal(r.status, 202, r.text())
    await waitSession(s.d, sid, idle)
    const history = (await s.d.request({ path: `/sessions/${sid}/history` })).json()
    const runId = history.items.find((e: { kind: string }) => e.kind === 'assistant').content.run_id
    assert.equal(typeof runId, 'string')
    problem(await create(s.d, ws, { title: 't', session_id: uuidv7() }), 404, 'session_not_found')
    problem(await create(s.d, ws, { title: 't', run_id: uuidv7() }), 400, 'work_run_without_session')
    problem(
      await create(s.d, ws, { title: 't', session_id: sid, run_id: uuidv7() }),
      400,
      'work_run_without_session',
    )
    const linked = await made(s.d, ws, { title: 'linked', session_id: sid.toUpperCase() })
    const read = (await s.d.request({ path: item(ws, linked.id) })).json()
    assert.equal(read.session_id, sid, 'ids are kept lower-case')
    const withRun = await patch(s.d, ws, linked.id, linked.etag, { run_id: runId })
    assert.equal(withRun.status, 200, withRun.text())
    assert.equal(withRun.json().resource.value.run_id, runId)
    // Clearing the session clears its run too.
    const etag = withRun.json().resource.etag
    const unlinked = (await patch(s.d, ws, linked.id, etag, { session_id: null })).json().resource.value
    assert.deepEqual([unlinked.session_id, unlinked.run_id], [null, null])
  })

  it('pages a workspace oldest first with a continuation bound to the workspace', async () => {
    const paged = mkdtempSync(join(s.d.home, 'paged-'))
    const ids: string[] = []
    for (let i = 0; i < 5; i++) ids.push((await made(s.d, paged, { title: `item ${i}` })).id)
    const first = (await s.d.request({ path: items(paged, '&limit=2') })).json()
    assert.deepEqual(
      first.items.map((i: { id: string }) => i.id),
      ids.slice(0, 2),
    )
    assert.equal(typeof first.next, 'string')
    const second = (await s.d.request({ path: items(paged, `&limit=2&next=${first.next}`) })).json()
    assert.deepEqual(
      second.items.map((i: { id: string }) => i.id),
      ids.slice(2, 4),
    )
    const third = (await s.d.request({ path: items(paged, `&limit=2&next=${second.next}`) })).json()
    assert.deepEqual(
      third.items.map((i: { id: string }) => i.id),
      ids.slice(4),
    )
    assert.equal(third.next, null)
    // A token from one workspace is refused for another.
    problem(await s.d.request({ path: items(ws, `&next=${first.next}`) }), 400, 'invalid_continuation')
    problem(await s.d.request({ path: items(paged, '&limit=0') }), 400, 'invalid_parameter')
  })

  it('queues a deletion note that the session reads at its next turn, and only once', async () => {
    const sid = await createSession(s.d, { kind: 'new', workspace: ws })
    const { id, etag } = await made(s.d, ws, { title: 'Ship the release' })
    const r = await remove(s.d, ws, id, etag, `&notify_session_id=${sid}`)
    assert.equal(r.status, 200, r.text())
    assert.deepEqual(r.json().notification, { state: 'queued', code: null, detail: null })
    s.upstream.requests.length = 0
    assert.equal((await putInput(s.d, sid, message('what changed?'))).status, 202)
    await upstreamRequests(s.upstream, 1)
    await waitSession(s.d, sid, idle)
    const sent = JSON.stringify(s.upstream.requests[0].body)
    assert.match(sent, /\[note from hearth\] Work item \\"Ship the release\\"/)
    assert.ok(sent.indexOf('[note from hearth]') < sent.indexOf('what changed?'), 'the note comes first')
    const history = (await s.d.request({ path: `/sessions/${sid}/history` })).json()
    const kinds = history.items.map((e: { kind: string }) => e.kind)
    assert.deepEqual(kinds.slice(0, 2), ['note', 'user'])
    const note = history.items[0]
    assert.equal(note.content.source, 'work')
    assert.equal(note.group, history.items[1].group, 'the note belongs to the turn it opens')
    // The next turn does not get it again as a new note (it is history now, sent once as such).
    s.upstream.requests.length = 0
    assert.equal((await putInput(s.d, sid, message('and now?'))).status, 202)
    await upstreamRequests(s.upstream, 1)
    await waitSession(s.d, sid, idle)
    const again = JSON.stringify(s.upstream.requests[0].body)
    assert.equal(again.split('[note from hearth]').length - 1, 1, 'the note appears once, in its place')
    const later = (await s.d.request({ path: `/sessions/${sid}/history` })).json()
    assert.equal(later.items.filter((e: { kind: string }) => e.kind === 'note').length, 1)
  })

  it('a session deleted before its next turn takes its waiting notes with it', async () => {
    const sid = await createSession(s.d, { kind: 'new', workspace: ws })
    const { id, etag } = await made(s.d, ws, { title: 'never read' })
    const r = await remove(s.d, ws, id, etag, `&notify_session_id=${sid}`)
    assert.equal(r.json().notification.state, 'queued')
    const config = await s.d.request({ path: `/sessions/${sid}?view=configuration` })
    const gone = await s.d.request({
      method: 'DELETE',
      path: `/sessions/${sid}?view=configuration`,
      headers: { 'if-match': config.headers.etag as string },
    })
    assert.equal(gone.status, 200, gone.text())
    const db = new Database(join(s.d.home, 'state.db'), { readonly: true })
    try {
      assert.equal(db.prepare('SELECT COUNT(*) FROM session_notes WHERE session_id = ?').pluck().get(sid), 0)
    } finally {
      db.close()
    }
    // And a note for it now fails, the deletion of the item standing.
    const other = await made(s.d, ws, { title: 'after' })
    const late = await remove(s.d, ws, other.id, other.etag, `&notify_session_id=${sid}`)
    assert.equal(late.status, 200)
    assert.deepEqual(
      [late.json().notification.state, late.json().notification.code],
      ['failed', 'session_deleted'],
    )
  })

  it('a note that cannot be queued leaves the deletion committed and says why', async () => {
    const { id, etag } = await made(s.d, ws, { title: 'orphan' })
    const nobody = uuidv7()
    const r = await remove(s.d, ws, id, etag, `&notify_session_id=${nobody}`)
    assert.equal(r.status, 200, r.text())
    assert.equal(r.json().notification.state, 'failed')
    assert.equal(r.json().notification.code, 'session_not_found')
    problem(await s.d.request({ path: item(ws, id) }), 404, 'work_item_not_found')
  })
})

describe('work items: durability and the extension switch', () => {
  it('an answered edit survives kill -9, and the routes vanish when the extension is off', async () => {
    let d = await startDaemon()
    const ws = mkdtempSync(join(d.home, 'ws-'))
    const { id } = await made(d, ws, { title: 'kept' })
    const etag = (await d.request({ path: item(ws, id) })).headers.etag as string
    const p = await patch(d, ws, id, etag, { status: 'done' })
    assert.equal(p.status, 200)
    await d.stop('SIGKILL')
    d = await startDaemon({ home: d.home })
    try {
      const read = (await d.request({ path: item(ws, id) })).json()
      assert.equal(read.status, 'done')
      assert.equal(read.revision, '2')
      const server = (await d.request({ path: '/server' })).json()
      assert.ok(server.extensions.some((e: { name: string }) => e.name === 'work'))
      // Turn the extension off through settings: the routes answer 404 and GET /server drops it.
      await change(d, 'extensions', { extensions: { work: { enabled: false } } })
      problem(await d.request({ path: item(ws, id) }), 404, 'not_found')
      problem(await d.request({ path: items(ws) }), 404, 'not_found')
      const after = (await d.request({ path: '/server' })).json()
      assert.ok(!after.extensions.some((e: { name: string }) => e.name === 'work'))
    } finally {
      await d.stop()
    }
  })

  it('a workspace holds at most 10,000 items', async () => {
    const first = await startDaemon()
    await first.stop()
    const home = first.home
    const ws = join(home, 'full')
    mkdirSync(ws)
    // 9,999 items as earlier runs of the daemon left them (one transaction while it is
    // stopped: 10,000 POSTs, each fsynced, take a minute on a loaded machine); the daemon
    // then takes the 10,000th and refuses the next.
    const db = new Database(join(home, 'state.db'))
    try {
      const insert = db.prepare(
        `INSERT INTO work_items (id, workspace, title, notes, status, revision, created_at, updated_at)
         VALUES (?, ?, ?, '', 'open', 1, ?, ?)`,
      )
      const at = new Date().toISOString()
      db.transaction(() => {
        for (let i = 0; i < 9_999; i++) insert.run(uuidv7(), ws, `n${i}`, at, at)
      })()
    } finally {
      db.close()
    }
    const d = await startDaemon({ home })
    try {
      assert.equal((await create(d, ws, { title: 'the last one' })).status, 201)
      problem(await create(d, ws, { title: 'one more' }), 409, 'work_items_full')
      // The limit is the workspace's: another one still takes items.
      const other = join(home, 'other')
      mkdirSync(other)
      assert.equal((await create(d, other, { title: 'elsewhere' })).status, 201)
    } finally {
      await d.stop()
    }
  })
})
