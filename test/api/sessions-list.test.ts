// GET /sessions against the real daemon: scopes, filters, search, sorts, limits and
// keyset paging.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { v7 as uuidv7 } from 'uuid'
import { type RawResponse, startDaemon, type TestDaemon } from '../helpers/daemon.ts'

const dirs: string[] = []

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-ws-'))
  dirs.push(dir)
  return dir
}

function expectProblem(res: RawResponse, status: number, code: string): void {
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status}: ${res.text()}`)
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/)
  assert.equal(res.json().code, code, res.text())
}

describe('GET /sessions', () => {
  let d: TestDaemon

  async function create(body: Record<string, unknown>): Promise<any> {
    const res = await d.request({
      method: 'PUT',
      path: `/sessions/${uuidv7()}`,
      headers: { 'content-type': 'application/json', 'if-none-match': '*' },
      body: JSON.stringify(body),
    })
    assert.equal(res.status, 201, res.text())
    return res.json()
  }

  async function change(id: string, body: unknown): Promise<void> {
    const etag = (await d.request({ path: `/sessions/${id}?view=configuration` })).json().etag
    const res = await d.request({
      method: 'PATCH',
      path: `/sessions/${id}?view=configuration`,
      headers: { 'content-type': 'application/merge-patch+json', 'if-match': etag },
      body: JSON.stringify(body),
    })
    assert.equal(res.status, 200, res.text())
  }

  async function visit(id: string): Promise<void> {
    const res = await d.request({ method: 'PUT', path: `/sessions/${id}/visits/${uuidv7()}` })
    assert.equal(res.status, 200, res.text())
  }

  const list = (query: Record<string, string | number | boolean> = {}) =>
    d.request({
      path: `/sessions?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`,
    })

  async function page(
    query: Record<string, string | number | boolean> = {},
  ): Promise<{ items: any[]; next: any }> {
    const res = await list(query)
    assert.equal(res.status, 200, res.text())
    assert.match(String(res.headers.vary), /Accept/)
    return res.json()
  }

  const ids = async (query: Record<string, string | number | boolean> = {}) =>
    (await page(query)).items.map((i) => i.id)

  // A family: root ─ child ─ grandchild, and a second child; another root elsewhere.
  let ws: string
  let other: string
  let root: any
  let child: any
  let grandchild: any
  let child2: any
  let lone: any

  before(async () => {
    d = await startDaemon()
    ws = workspace()
    other = workspace()
    root = await create({ kind: 'new', workspace: ws, name: 'Family root' })
    child = await create({ kind: 'child', parent_id: root.id, name: 'Child one' })
    grandchild = await create({ kind: 'child', parent_id: child.id, name: 'Grandchild' })
    child2 = await create({ kind: 'child', parent_id: root.id, name: 'Child two' })
    lone = await create({ kind: 'new', workspace: other, name: 'Lone root' })
  })
  after(async () => {
    await d.stop()
    for (const dir of [...dirs, d.home]) rmSync(dir, { recursive: true, force: true })
  })

  describe('scope', () => {
    it('lists roots by default, newest activity first', async () => {
      assert.deepEqual(await ids(), [lone.id, root.id])
      assert.deepEqual(await ids({ scope: 'roots' }), [lone.id, root.id])
      assert.deepEqual(await ids({ sort: 'activity' }), [lone.id, root.id])
      assert.equal((await page()).next, null)
    })

    it('lists all sessions with scope=all', async () => {
      assert.deepEqual(await ids({ scope: 'all' }), [lone.id, child2.id, grandchild.id, child.id, root.id])
    })

    it('lists the children of a parent', async () => {
      assert.deepEqual(await ids({ parent_id: root.id }), [child2.id, child.id])
      assert.deepEqual(await ids({ parent_id: child.id }), [grandchild.id])
      assert.deepEqual(await ids({ parent_id: grandchild.id }), [])
      assert.deepEqual(await ids({ parent_id: root.id, scope: 'all' }), [child2.id, child.id])
    })

    it('lists every member of a family', async () => {
      assert.deepEqual(await ids({ family_id: root.id }), [child2.id, grandchild.id, child.id, root.id])
      assert.deepEqual(await ids({ family_id: lone.id }), [lone.id])
    })

    it('refuses conflicting scopes and unknown parents or families', async () => {
      expectProblem(await list({ parent_id: root.id, family_id: root.id }), 400, 'invalid_scope')
      expectProblem(await list({ scope: 'roots', parent_id: root.id }), 400, 'invalid_scope')
      expectProblem(await list({ scope: 'roots', family_id: root.id }), 400, 'invalid_scope')
      expectProblem(await list({ parent_id: uuidv7() }), 404, 'session_not_found')
      expectProblem(await list({ family_id: uuidv7() }), 404, 'family_not_found')
      expectProblem(await list({ family_id: child.id }), 404, 'family_not_found')
      expectProblem(await list({ parent_id: 'nope' }), 400, 'invalid_parameter')
      expectProblem(await list({ scope: 'everything' }), 400, 'invalid_parameter')
      expectProblem(await list({ colour: 'red' }), 400, 'unknown_parameter')
    })
  })

  describe('filters', () => {
    it('filters by workspace', async () => {
      assert.deepEqual(await ids({ workspace: ws }), [root.id])
      assert.deepEqual(await ids({ workspace: ws, scope: 'all' }), [
        child2.id,
        grandchild.id,
        child.id,
        root.id,
      ])
      assert.deepEqual(await ids({ workspace: `${other}/` }), [lone.id], 'the same directory, normalized')
      assert.deepEqual(await ids({ workspace: '/nowhere' }), [])
    })

    it('searches names case-insensitively, short needles and long', async () => {
      const sw = workspace()
      const alpha = await create({ kind: 'new', workspace: sw, name: 'Alpha Report' })
      const beta = await create({ kind: 'new', workspace: sw, name: 'beta notes' })
      const gamma = await create({ kind: 'new', workspace: sw, name: 'GAMMA 100%_done' })
      const summer = await create({ kind: 'new', workspace: sw, name: 'Été à Paris' })
      const search = async (text: string) => (await ids({ workspace: sw, search: text })).sort()
      const expect = (...xs: any[]) => xs.map((x) => x.id).sort()
      // One or two characters (LIKE).
      assert.deepEqual(await search('b'), expect(beta))
      assert.deepEqual(await search('A'), expect(alpha, beta, gamma, summer))
      assert.deepEqual(await search('BE'), expect(beta))
      assert.deepEqual(await search('%'), expect(gamma), 'wildcards are literal')
      assert.deepEqual(await search('%_'), expect(gamma))
      assert.deepEqual(await search('_'), expect(gamma))
      assert.deepEqual(await search('z'), [])
      // Case folds beyond ASCII at every length.
      assert.deepEqual(await search('É'), expect(summer))
      assert.deepEqual(await search('à'), expect(summer))
      assert.deepEqual(await search('À '), expect(summer))
      assert.deepEqual(await search('ÉTÉ'), expect(summer))
      assert.deepEqual(await search('été à'), expect(summer))
      // Three and more (trigram index).
      assert.deepEqual(await search('alp'), expect(alpha))
      assert.deepEqual(await search('REPORT'), expect(alpha))
      assert.deepEqual(await search('pha rep'), expect(alpha))
      assert.deepEqual(await search('gamma 100%_'), expect(gamma))
      assert.deepEqual(await search('Notes'), expect(beta))
      assert.deepEqual(await search('"no'), [])
      assert.deepEqual(await search('xyz'), [])
      // Renames re-index.
      await change(beta.id, { name: 'Delta memo' })
      assert.deepEqual(await search('notes'), [])
      assert.deepEqual(await search('memo'), expect(beta))
      assert.deepEqual(await search('de'), expect(beta))
      // Search covers the scope it is given.
      assert.deepEqual(await ids({ search: 'grandchild' }), [])
      assert.deepEqual(await ids({ search: 'grandchild', scope: 'all' }), [grandchild.id])
      assert.deepEqual(await ids({ search: 'child', family_id: root.id }), [
        child2.id,
        grandchild.id,
        child.id,
      ])
      // At most 256 characters.
      assert.equal((await list({ search: 'x'.repeat(256) })).status, 200)
      expectProblem(await list({ search: 'x'.repeat(257) }), 400, 'invalid_parameter')
    })

    it('filters by archived', async () => {
      const aw = workspace()
      const kept = await create({ kind: 'new', workspace: aw })
      const archived = await create({ kind: 'new', workspace: aw })
      await change(archived.id, { preferences: { archived: true } })
      assert.deepEqual(await ids({ workspace: aw, archived: true }), [archived.id])
      assert.deepEqual(await ids({ workspace: aw, archived: false }), [kept.id])
      assert.deepEqual(await ids({ workspace: aw }), [archived.id, kept.id])
      expectProblem(await list({ archived: 'maybe' }), 400, 'invalid_parameter')
    })

    it('filters by pinned', async () => {
      const pw = workspace()
      const plain = await create({ kind: 'new', workspace: pw })
      const pinned = await create({ kind: 'new', workspace: pw })
      await change(pinned.id, { preferences: { pinned: true, pin_order: 1 } })
      assert.deepEqual(await ids({ workspace: pw, pinned: true }), [pinned.id])
      assert.deepEqual(await ids({ workspace: pw, pinned: false }), [plain.id])
      assert.deepEqual(await ids({ workspace: pw }), [pinned.id, plain.id])
      expectProblem(await list({ pinned: 'yes' }), 400, 'invalid_parameter')
    })

    it('filters by needs_reload', async () => {
      // No session has loaded a composition yet: all need a reload.
      assert.deepEqual(await ids({ workspace: ws, needs_reload: true }), [root.id])
      assert.deepEqual(await ids({ workspace: ws, needs_reload: false }), [])
      assert.deepEqual(await ids({ needs_reload: false, scope: 'all' }), [])
    })
  })

  describe('sort, limit and paging', () => {
    it('sorts by opens with sort=frequent', async () => {
      const fw = workspace()
      const once = await create({ kind: 'new', workspace: fw })
      const thrice = await create({ kind: 'new', workspace: fw })
      const never = await create({ kind: 'new', workspace: fw })
      for (let i = 0; i < 3; i++) await visit(thrice.id)
      await visit(once.id)
      assert.deepEqual(await ids({ workspace: fw, sort: 'frequent' }), [thrice.id, once.id, never.id])
      assert.deepEqual(await ids({ workspace: fw }), [never.id, thrice.id, once.id])
      const first = await page({ workspace: fw, sort: 'frequent', limit: 1 })
      assert.deepEqual(
        first.items.map((i) => i.id),
        [thrice.id],
      )
      const rest = await page({ workspace: fw, sort: 'frequent', limit: 5, next: first.next })
      assert.deepEqual(
        rest.items.map((i) => i.id),
        [once.id, never.id],
      )
      expectProblem(await list({ sort: 'recent' }), 400, 'invalid_parameter')
    })

    it('pages through keysets, each session exactly once', async () => {
      const pw = workspace()
      const made: string[] = []
      for (let i = 0; i < 7; i++)
        made.push((await create({ kind: 'new', workspace: pw, name: `page ${i}` })).id)
      const expected = [...made].reverse()
      const seen: string[] = []
      let next: string | null = null
      let pages = 0
      do {
        const query: Record<string, string | number> = { workspace: pw, limit: 3 }
        if (next) query.next = next
        const p = await page(query)
        seen.push(...p.items.map((i) => i.id))
        next = p.next
        pages++
        // A session created mid-listing is newer than every keyset: it never shows up later.
        if (pages === 1) await create({ kind: 'new', workspace: pw, name: 'late' })
      } while (next)
      assert.equal(pages, 3)
      assert.deepEqual(seen, expected)

      // The page size may change between pages; the filter may not.
      const p1 = await page({ workspace: pw, limit: 3 })
      const p2 = await page({ workspace: pw, limit: 2, next: p1.next })
      assert.equal(p2.items.length, 2)
      assert.equal(p2.items[0].id, (await ids({ workspace: pw }))[3])
      // Naming the default sort is the same query.
      const sameSort = await page({ workspace: pw, sort: 'activity', limit: 2, next: p1.next })
      assert.deepEqual(sameSort.items, p2.items)
      expectProblem(await list({ workspace: ws, limit: 3, next: p1.next }), 400, 'invalid_continuation')
      expectProblem(
        await list({ workspace: pw, archived: false, next: p1.next }),
        400,
        'invalid_continuation',
      )
      expectProblem(
        await list({ workspace: pw, sort: 'frequent', next: p1.next }),
        400,
        'invalid_continuation',
      )
      expectProblem(await list({ workspace: pw, scope: 'all', next: p1.next }), 400, 'invalid_continuation')
      // Spelling out the default scope, or the same directory differently, is the same query.
      assert.equal((await list({ workspace: `${pw}/`, scope: 'roots', limit: 2, next: p1.next })).status, 200)
      expectProblem(await list({ workspace: pw, next: `${p1.next}x` }), 400, 'invalid_continuation')
      expectProblem(await list({ workspace: pw, next: 'garbage' }), 400, 'invalid_continuation')
    })

    it('defaults to 50 per page and allows at most 200', async () => {
      const lw = workspace()
      for (let i = 0; i < 52; i++) await create({ kind: 'new', workspace: lw })
      const first = await page({ workspace: lw })
      assert.equal(first.items.length, 50)
      assert.notEqual(first.next, null)
      const second = await page({ workspace: lw, next: first.next })
      assert.equal(second.items.length, 2)
      assert.equal(second.next, null)
      const big = await page({ workspace: lw, limit: 200 })
      assert.equal(big.items.length, 52)
      assert.equal(big.next, null)
      expectProblem(await list({ limit: 201 }), 400, 'invalid_parameter')
      expectProblem(await list({ limit: 0 }), 400, 'invalid_parameter')
      expectProblem(await list({ limit: 'ten' }), 400, 'invalid_parameter')
    })
  })
})
