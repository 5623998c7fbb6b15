// Search behind the writes: a create or rename marks its session in search_pending and the
// indexer catches up later. A search must give the same answer before the catch-up (marked
// sessions are scanned), after it (the trigram index), across a kill -9, and when a backlog
// rather than a pause triggers the catch-up.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import Database from 'better-sqlite3'
import { v7 as uuidv7 } from 'uuid'
import { type RawResponse, startDaemon, type TestDaemon } from '../helpers/daemon.ts'

/** Never quiet long enough: only a backlog or a restart brings the index up to date. */
const NEVER_QUIET = { HEARTH_SEARCH_QUIET_MS: '600000' }

const dirs: string[] = []
let d: TestDaemon | undefined

after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** Runs a test against daemons it starts (assigned to `d`), stopping the last one whatever happens. */
async function withDaemons(test: () => Promise<void>): Promise<void> {
  try {
    await test()
  } finally {
    await d?.stop()
    d = undefined
  }
}

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-ws-'))
  dirs.push(dir)
  return dir
}

async function create(body: Record<string, unknown>): Promise<string> {
  const res = await d!.request({
    method: 'PUT',
    path: `/sessions/${uuidv7()}`,
    headers: { 'content-type': 'application/json', 'if-none-match': '*' },
    body: JSON.stringify(body),
  })
  assert.equal(res.status, 201, res.text())
  return res.json().id
}

async function rename(id: string, name: string): Promise<void> {
  const etag = (await d!.request({ path: `/sessions/${id}?view=configuration` })).json().etag
  const res = await d!.request({
    method: 'PATCH',
    path: `/sessions/${id}?view=configuration`,
    headers: { 'content-type': 'application/merge-patch+json', 'if-match': etag },
    body: JSON.stringify({ name }),
  })
  assert.equal(res.status, 200, res.text())
}

async function search(ws: string, text: string): Promise<string[]> {
  const q = new URLSearchParams({ workspace: ws, search: text, limit: '200' })
  const res = await d!.request({ path: `/sessions?${q}` })
  assert.equal(res.status, 200, res.text())
  return res
    .json()
    .items.map((i: { id: string }) => i.id)
    .sort()
}

/** Sessions marked and not yet indexed, read from state.db beside the running daemon. */
function marked(home: string): number {
  const db = new Database(join(home, 'state.db'), { readonly: true })
  try {
    return db.prepare('SELECT COUNT(*) FROM search_pending').pluck().get() as number
  } finally {
    db.close()
  }
}

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 250 && !ok(); i++) await sleep(20)
  assert.ok(ok(), what)
}

describe('search behind the writes', () => {
  it('answers the same before the index catches up, after a kill -9, and after the catch-up', () =>
    withDaemons(async () => {
      d = await startDaemon({ env: NEVER_QUIET })
      const home = d.home
      const ws = workspace()
      const ledger = await create({ kind: 'new', workspace: ws, name: 'Quarterly Ledger' })
      const budget = await create({ kind: 'new', workspace: ws, name: 'Draft Budget' })
      await rename(budget, 'Final Budget')
      const deleted = await create({ kind: 'new', workspace: ws, name: 'Ledger scratch' })
      const etag = (await d.request({ path: `/sessions/${deleted}?view=configuration` })).json().etag
      const gone = await d.request({
        method: 'DELETE',
        path: `/sessions/${deleted}?view=configuration`,
        headers: { 'if-match': etag },
      })
      assert.equal(gone.status, 200, gone.text())

      const expectations = async () => {
        assert.deepEqual(await search(ws, 'ledger'), [ledger])
        assert.deepEqual(await search(ws, 'QUARTERLY led'), [ledger])
        assert.deepEqual(await search(ws, 'final budget'), [budget])
        assert.deepEqual(await search(ws, 'draft'), [], 'the old name no longer matches')
        assert.deepEqual(await search(ws, 'udg'), [budget])
        assert.deepEqual(await search(ws, 'scratch'), [], 'a deleted session is not found')
        assert.deepEqual(await search(ws, 'et'), [budget], 'short needles scan every session')
      }
      assert.equal(marked(home), 2, 'the create, rename and delete left two sessions marked')
      await expectations()

      // Marks are committed with the change: they survive a crash, and the next start indexes them.
      d.proc.kill('SIGKILL')
      await d.exited
      assert.equal(marked(home), 2)
      d = await startDaemon({ home })
      await until('the indexer caught up after the restart', () => marked(home) === 0)
      await expectations()
      await rename(ledger, 'Annual Ledger')
      assert.deepEqual(await search(ws, 'quarterly'), [])
      assert.deepEqual(await search(ws, 'annual'), [ledger])
      await until('the indexer caught up once writes paused', () => marked(home) === 0)
      assert.deepEqual(await search(ws, 'quarterly'), [])
      assert.deepEqual(await search(ws, 'annual'), [ledger])
    }))

  it('catches up under writes that never pause once a backlog builds up', () =>
    withDaemons(async () => {
      d = await startDaemon({ env: NEVER_QUIET })
      const ws = workspace()
      const connections = 4
      let made = 0
      await Promise.all(
        Array.from({ length: connections }, async () => {
          while (made < 1_050) await create({ kind: 'new', workspace: ws, name: `bulk ${made++}` })
        }),
      )
      await until('the backlog was indexed without a pause', () => marked(d!.home) < 1_000)
      assert.equal((await search(ws, 'bulk 1049')).length, 1)
      assert.equal((await search(ws, 'bulk 10')).length, 61, 'bulk 10, 100–109, 1000–1049')

      // Indexed and nothing marked: a search with few matches is listed from them, one with
      // many by walking the sessions in order. Both give the same order and pages.
      const home = d.home
      await d.stop()
      d = await startDaemon({ home })
      await until('the indexer caught up after the restart', () => marked(home) === 0)
      for (const [text, total] of [
        ['bulk 10', 61],
        ['bulk', 1_050],
      ] as const) {
        const seen: { name: string; key: string }[] = []
        let next: string | null = null
        do {
          const q = new URLSearchParams({ workspace: ws, search: text, limit: '25' })
          if (next) q.set('next', next)
          const res: RawResponse = await d.request({ path: `/sessions?${q}` })
          assert.equal(res.status, 200, res.text())
          const page = res.json()
          for (const i of page.items) seen.push({ name: i.name, key: `${i.activity_at} ${i.id}` })
          next = page.next
        } while (next && seen.length < 100)
        const keys = seen.map((x) => x.key)
        assert.equal(seen.length, Math.min(total, 100), text)
        assert.ok(
          seen.every((x) => x.name.includes(text)),
          text,
        )
        assert.deepEqual(keys, [...keys].sort().reverse(), `${text}: latest activity first`)
        assert.equal(new Set(keys).size, keys.length, `${text}: no session twice across pages`)
      }
    }))
})
