// Acknowledged session changes survive kill -9: each step gets its 2xx, the daemon dies
// without a chance to flush anything, and a new daemon on the same home shows the change.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import Database from 'better-sqlite3'
import { v7 as uuidv7 } from 'uuid'
import { type RawResponse, startDaemon, type TestDaemon } from '../helpers/daemon.ts'

describe('sessions survive kill -9', () => {
  const ws = mkdtempSync(join(tmpdir(), 'hearth-ws-'))
  const moved = mkdtempSync(join(tmpdir(), 'hearth-ws-'))
  let d: TestDaemon | undefined

  after(async () => {
    await d?.stop('SIGKILL')
    for (const dir of [ws, moved, d?.home]) if (dir) rmSync(dir, { recursive: true, force: true })
  })

  /** Kills the daemon right after an acknowledged request and starts another on its home. */
  async function crashAfter(res: RawResponse, status: number): Promise<TestDaemon> {
    assert.equal(res.status, status, res.text())
    const home = d!.home
    d!.proc.kill('SIGKILL')
    await d!.exited
    d = await startDaemon({ home })
    return d
  }

  const json = (body: unknown, headers: Record<string, string> = {}) => ({
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })

  async function read(id: string, query = ''): Promise<any> {
    const res = await d!.request({ path: `/sessions/${id}${query}` })
    assert.equal(res.status, 200, res.text())
    return res.json()
  }

  it('keeps creations, changes, visits, children, moves and deletions', async () => {
    d = await startDaemon()
    const id = uuidv7()
    await crashAfter(
      await d.request({
        method: 'PUT',
        path: `/sessions/${id}`,
        ...json({ kind: 'new', workspace: ws, name: 'durable' }, { 'if-none-match': '*' }),
      }),
      201,
    )
    const created = await read(id)
    assert.equal(created.name, 'durable')
    assert.equal(created.cursor.sequence, 1)

    const etag = (await read(id, '?view=configuration')).etag
    await crashAfter(
      await d.request({
        method: 'PATCH',
        path: `/sessions/${id}?view=configuration`,
        ...json(
          { model: 'm-2', preferences: { pinned: true } },
          { 'if-match': etag, 'content-type': 'application/merge-patch+json' },
        ),
      }),
      200,
    )
    const changed = await read(id)
    assert.equal(changed.model, 'm-2')
    assert.equal(changed.preferences.pinned, true)
    assert.equal(changed.configuration_resource.value.revision, 2)
    assert.equal(changed.cursor.sequence, 2)

    const visitId = uuidv7()
    const visit = await d.request({ method: 'PUT', path: `/sessions/${id}/visits/${visitId}`, ...json({}) })
    const visitBody = visit.text()
    await crashAfter(visit, 200)
    assert.equal((await read(id)).preferences.opens, 1)
    // The visit id is remembered: a retry after the crash does not count again.
    const retry = await d.request({ method: 'PUT', path: `/sessions/${id}/visits/${visitId}`, ...json({}) })
    assert.equal(retry.text(), visitBody)
    assert.equal((await read(id)).preferences.opens, 1)

    const childId = uuidv7()
    await crashAfter(
      await d.request({
        method: 'PUT',
        path: `/sessions/${childId}`,
        ...json({ kind: 'child', parent_id: id }, { 'if-none-match': '*' }),
      }),
      201,
    )
    assert.equal((await read(childId)).depth, 1)
    const parentConfig = await read(id, '?view=configuration')
    assert.equal(parentConfig.value.family_revision, 2)

    await crashAfter(
      await d.request({
        method: 'PATCH',
        path: `/sessions/${id}?view=configuration`,
        ...json(
          { workspace: moved, family_revision: 2 },
          { 'if-match': parentConfig.etag, 'content-type': 'application/merge-patch+json' },
        ),
      }),
      200,
    )
    assert.equal((await read(id)).workspace, moved)
    assert.equal((await read(childId)).workspace, moved)

    const c = await read(id, '?view=configuration')
    await crashAfter(
      await d.request({
        method: 'DELETE',
        path: `/sessions/${id}?view=configuration&scope=subtree&family_revision=${c.value.family_revision}`,
        headers: { 'if-match': c.etag },
      }),
      200,
    )
    for (const gone of [id, childId]) {
      const res = await d.request({ path: `/sessions/${gone}` })
      assert.equal(res.status, 410, res.text())
      assert.equal(res.json().code, 'session_deleted')
    }
    const list = await d.request({ path: '/sessions?scope=all' })
    assert.deepEqual(list.json().items, [])
  })

  it('finishes a subtree deletion a crashed daemon left gated', async () => {
    const create = async (body: unknown) => {
      const id = uuidv7()
      const res = await d!.request({
        method: 'PUT',
        path: `/sessions/${id}`,
        ...json(body, { 'if-none-match': '*' }),
      })
      assert.equal(res.status, 201, res.text())
      return id
    }
    const root = await create({ kind: 'new', workspace: ws })
    const child = await create({ kind: 'child', parent_id: root })
    const grandchild = await create({ kind: 'child', parent_id: child })
    const sibling = await create({ kind: 'child', parent_id: root })
    const home = d!.home
    d!.proc.kill('SIGKILL')
    await d!.exited
    // The state a crash leaves after the gate committed, before any member was deleted.
    const db = new Database(join(home, 'state.db'))
    db.prepare('UPDATE families SET deleting = ? WHERE root_id = ?').run(child, root)
    db.close()
    d = await startDaemon({ home })
    for (let i = 0; i < 100; i++) {
      if ((await d.request({ path: `/sessions/${child}` })).status === 410) break
      await sleep(20)
    }
    for (const gone of [child, grandchild])
      assert.equal((await d.request({ path: `/sessions/${gone}` })).status, 410)
    for (const kept of [root, sibling])
      assert.equal((await d.request({ path: `/sessions/${kept}` })).status, 200)
    // The gate is lifted: the family takes children again.
    await create({ kind: 'child', parent_id: root })
  })
})
