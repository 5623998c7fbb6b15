// History reads: ascending pages that keep display groups whole, continuations bound to
// their query, checkpoints, and an entry's long text in UTF-8 pieces.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { assertProblem } from '../api/hostile.ts'
import { createSession } from '../streams/sse-client.ts'
import { idle, message, putInput, type Setup, startWithUpstream, waitSession } from './helpers.ts'

describe('history', () => {
  let s: Setup
  let sid: string
  before(async () => {
    s = await startWithUpstream({ protocol: 'chat_completions' })
    sid = await createSession(s.d)
    // Five turns: each a user entry and an answer (ten entries, five groups).
    for (let i = 1; i <= 5; i++) {
      await putInput(s.d, sid, message(`question ${i}`))
      await waitSession(s.d, sid, (x) => idle(x) && x.input_order === i)
    }
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })

  const page = async (query: string) => {
    const r = await s.d.request({ path: `/sessions/${sid}/history${query}` })
    assert.equal(r.status, 200, r.text())
    return r.json()
  }

  it('spoke Chat Completions to the upstream', () => {
    const body = s.upstream.requests.at(-1)?.body
    assert.equal(body.stream, true)
    assert.deepEqual(body.stream_options, { include_usage: true })
    assert.equal(body.messages.at(-1).content, 'question 5')
  })

  it('pages ascend, keep groups whole, and link older and newer pages', async () => {
    const newest = await page('?limit=3')
    // The newest three entries cut group 4 in half: the page widens to hold it whole.
    assert.deepEqual(
      newest.items.map((e: any) => e.position),
      [7, 8, 9, 10],
    )
    assert.equal(newest.high_water, 10)
    assert.equal(newest.newer, null)
    const older = await page(`?next=${encodeURIComponent(newest.older)}&limit=3`)
    assert.deepEqual(
      older.items.map((e: any) => e.position),
      [3, 4, 5, 6],
    )
    const newer = await page(`?next=${encodeURIComponent(older.newer)}&limit=2`)
    assert.deepEqual(
      newer.items.map((e: any) => e.position),
      [7, 8],
    )
    const first = await page('?after=0&limit=2')
    assert.deepEqual(
      first.items.map((e: any) => [e.kind, e.group]),
      [
        ['user', 1],
        ['assistant', 1],
      ],
    )
    assert.equal(first.older, null)
    const before3 = await page('?before=3')
    assert.deepEqual(
      before3.items.map((e: any) => e.position),
      [1, 2],
    )
  })

  it('lists checkpoints, one per group', async () => {
    const cp = await page('?view=checkpoints&limit=2')
    assert.equal(cp.view, 'checkpoints')
    assert.deepEqual(
      cp.items.map((c: any) => [c.group, c.position, c.text]),
      [
        [4, 7, 'question 4'],
        [5, 9, 'question 5'],
      ],
    )
    const older = await page(`?view=checkpoints&limit=2&next=${encodeURIComponent(cp.older)}`)
    assert.deepEqual(
      older.items.map((c: any) => c.group),
      [2, 3],
    )
  })

  it('refuses mixed positions and foreign continuations', async () => {
    assertProblem(
      await s.d.request({ path: `/sessions/${sid}/history?before=3&after=1` }),
      400,
      'invalid_history_range',
    )
    const cp = await page('?view=checkpoints&limit=1')
    assertProblem(
      await s.d.request({ path: `/sessions/${sid}/history?next=${encodeURIComponent(cp.older)}` }),
      400,
      'invalid_continuation',
    )
    assertProblem(await s.d.request({ path: `/sessions/${sid}/history?limit=201` }), 400, 'invalid_parameter')
  })

  it('serves a long text in pieces that end on character boundaries', async () => {
    const long = `${'a'.repeat(65_535)}é${'ü'.repeat(40_000)}🙂end`
    await putInput(s.d, sid, message(long))
    const done = await waitSession(s.d, sid, (x) => idle(x) && x.input_order === 6)
    const entry = done.history.items.find((e: any) => e.content.truncated)
    assert.ok(entry, 'the inline text is cut')
    assert.equal(entry.content.text.length, 16_384)
    assert.equal(entry.content.text_bytes, Buffer.byteLength(long))
    let next: string | null = null
    let text = ''
    let pieces = 0
    do {
      const q: string = next ? `?next=${encodeURIComponent(next)}` : ''
      const r = await s.d.request({ path: `/sessions/${sid}/history/${entry.id}${q}` })
      assert.equal(r.status, 200, r.text())
      const p = r.json()
      assert.equal(p.offset, Buffer.byteLength(text))
      assert.ok(Buffer.byteLength(p.text) <= 65_536)
      text += p.text
      next = p.next
      pieces++
    } while (next)
    assert.equal(text, long)
    assert.equal(pieces, 3)
    assertProblem(await s.d.request({ path: `/sessions/${sid}/history/999` }), 404, 'entry_not_found')
    assertProblem(await s.d.request({ path: `/sessions/${sid}/history/0` }), 404, 'entry_not_found')
  })
})
