// The 429 of PUT /sessions/{id}: a family holds at most 1024 sessions. A child beyond that is
// refused with family_full and nothing commits; deleting a member makes room; a fork starts a
// family of its own.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { v7 as uuidv7 } from 'uuid'
import { startDaemon, type TestDaemon } from '../helpers/daemon.ts'

const LIMIT = 1024

describe('family size limit', () => {
  let d: TestDaemon
  before(async () => {
    d = await startDaemon()
  })
  after(async () => {
    await d.stop()
  })

  const put = (id: string, body: Record<string, unknown>) =>
    d.request({
      method: 'PUT',
      path: `/sessions/${id}`,
      headers: { 'content-type': 'application/json', 'if-none-match': '*' },
      body: JSON.stringify(body),
    })

  const familyRevision = async (id: string) =>
    (await d.request({ path: `/sessions/${id}?view=configuration` })).json().value.family_revision

  it('refuses a child past 1024 members with 429 family_full; deleting one makes room', async () => {
    const root = uuidv7()
    assert.equal((await put(root, { kind: 'new', workspace: d.home })).status, 201)
    const children: string[] = []
    // Children of the root and of its children: the limit counts the whole family.
    for (let made = 1; made < LIMIT; made += 16) {
      const batch = Array.from({ length: Math.min(16, LIMIT - made) }, () => uuidv7())
      const parent = children.length > 0 && made % 32 === 1 ? children[0] : root
      const res = await Promise.all(batch.map((id) => put(id, { kind: 'child', parent_id: parent })))
      for (const r of res) assert.equal(r.status, 201, r.text())
      children.push(...batch)
    }
    assert.equal(children.length, LIMIT - 1)
    const revision = await familyRevision(root)

    const refused = uuidv7()
    const res = await put(refused, { kind: 'child', parent_id: children[0] })
    assert.equal(res.status, 429, res.text())
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/)
    assert.equal(res.json().code, 'family_full')
    assert.equal((await d.request({ path: `/sessions/${refused}` })).status, 404, 'nothing was created')
    assert.equal(await familyRevision(root), revision, 'the family did not change')

    // A fork is a new family: not limited by this one.
    assert.equal((await put(uuidv7(), { kind: 'forked', source_id: root })).status, 201)

    const leaf = children.at(-1) as string
    const etag = (await d.request({ path: `/sessions/${leaf}?view=configuration` })).json().etag
    const gone = await d.request({
      method: 'DELETE',
      path: `/sessions/${leaf}?view=configuration`,
      headers: { 'if-match': etag },
    })
    assert.equal(gone.status, 200, gone.text())
    assert.equal((await put(refused, { kind: 'child', parent_id: root })).status, 201, 'room again')
    assert.equal((await put(uuidv7(), { kind: 'child', parent_id: root })).status, 429)
  })
})
