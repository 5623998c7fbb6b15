// Durable admission: decisions, repeats, conflicts, validation order, the 32-input queue,
// reads after deletion and the seven-day window. Every test talks HTTP to a real daemon.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { v7 as uuidv7 } from 'uuid'
import { assertProblem } from '../api/hostile.ts'
import { createSession, deleteLeaf } from '../streams/sse-client.ts'
import {
  getSession,
  idle,
  message,
  post,
  putInput,
  type Setup,
  startWithUpstream,
  waitSession,
} from './helpers.ts'

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').toString('base64')
/** A UUIDv7 whose time is eight days ago. */
const oldId = () => uuidv7({ msecs: Date.now() - 8 * 24 * 3600 * 1000 })

describe('input admission', () => {
  let s: Setup
  before(async () => {
    s = await startWithUpstream()
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })

  it('accepts a message with 202, runs it, and records the answer in the history', async () => {
    const sid = await createSession(s.d)
    const r = await putInput(s.d, sid, message('hello'))
    assert.equal(r.status, 202, r.text())
    const input = r.json()
    assert.equal(input.id, r.inputId)
    assert.equal(input.session_id, sid)
    assert.equal(input.admission, 'accepted')
    assert.equal(input.http_status, 202)
    assert.equal(input.acceptance_order, 1)
    assert.equal(input.delivery, 'pending')
    assert.equal(input.client_id, 'draft-1')
    assert.equal(input.problem, null)
    const session = await waitSession(s.d, sid, idle)
    assert.equal(session.input_order, 1)
    assert.equal(session.latest_answer.text, 'Hello, world!')
    assert.equal(session.latest_answer.outcome, 'completed')
    assert.equal(session.usage.prompt_tokens, 12)
    assert.equal(session.usage.completion_tokens, 4)
    assert.equal(session.history.items.length, 2)
    assert.deepEqual(
      session.history.items.map((e: any) => [e.kind, e.content.text]),
      [
        ['user', 'hello'],
        ['assistant', 'Hello, world!'],
      ],
    )
    const done = (await s.d.request({ path: `/sessions/${sid}/inputs/${r.inputId}` })).json()
    assert.equal(done.delivery, 'completed')
    assert.equal(done.transcript_position, 1)
    assert.equal(typeof done.turn, 'string')
    const sent = s.upstream.requests.at(-1)
    assert.equal(sent?.body.model, 'fake-model')
    assert.equal(sent?.body.stream, true)
    assert.match(JSON.stringify(sent?.body.input), /hello/)
  })

  it('answers a repeat with the original decision and current delivery; another intent is 409', async () => {
    const sid = await createSession(s.d)
    const first = await putInput(s.d, sid, message('once'))
    assert.equal(first.status, 202)
    await waitSession(s.d, sid, idle)
    // Keys in another order are the same request.
    const again = await putInput(
      s.d,
      sid,
      JSON.stringify({ client_id: 'draft-1', text: 'once', kind: 'message' }),
      first.inputId,
    )
    assert.equal(again.status, 202, again.text())
    assert.equal(again.json().acceptance_order, 1)
    assert.equal(again.json().delivery, 'completed')
    const other = await putInput(s.d, sid, message('twice'), first.inputId)
    assertProblem(other, 409, 'input_conflict')
    // A repeat that is not even valid any more is a different intent too, never a 400.
    assertProblem(
      await putInput(s.d, sid, { kind: 'message', bogus: 1 }, first.inputId),
      409,
      'input_conflict',
    )
    const elsewhere = await createSession(s.d)
    assertProblem(await putInput(s.d, elsewhere, message('once'), first.inputId), 409, 'input_conflict')
    assert.equal((await getSession(s.d, sid)).input_order, 1)
  })

  it('admits one of 100 concurrent PUTs of one id; all answers are equal', async () => {
    const sid = await createSession(s.d)
    const id = uuidv7()
    const answers = await Promise.all(
      Array.from({ length: 100 }, () => putInput(s.d, sid, message('same'), id)),
    )
    for (const a of answers) assert.equal(a.status, 202)
    const first = answers[0].json()
    for (const a of answers) {
      const body = a.json()
      assert.equal(body.acceptance_order, 1)
      assert.equal(body.accepted_at, first.accepted_at)
    }
    const session = await waitSession(s.d, sid, idle)
    assert.equal(session.input_order, 1)
    assert.equal(session.history.items.filter((e: any) => e.kind === 'user').length, 1)
  })

  it('validates a new input: ids, texts, images, sessions', async () => {
    const sid = await createSession(s.d)
    assertProblem(await putInput(s.d, sid, message('x'), 'not-a-uuid'), 400, 'invalid_id')
    assertProblem(
      await putInput(s.d, sid, message('x'), '01900000-0000-4000-8000-000000000000'),
      400,
      'invalid_id',
    )
    assertProblem(await putInput(s.d, sid, message('   ')), 400, 'empty_message')
    assertProblem(await putInput(s.d, sid, { ...message('x'), extra: 1 }), 400, 'unknown_field')
    assertProblem(
      await putInput(s.d, sid, { kind: 'note', text: 'x', client_id: 'c' }),
      400,
      'invalid_request',
    )
    const bad = [
      { media_type: 'image/png', data: 'not base64!' },
      { media_type: 'image/jpeg', data: PNG },
      { media_type: 'image/gif', data: PNG },
    ]
    for (const img of bad) {
      const r = await putInput(s.d, sid, message('look', { images: [img] }))
      assert.equal(r.status, 400, JSON.stringify(img))
    }
    assertProblem(await putInput(s.d, uuidv7(), message('x')), 404, 'session_not_found')
    assertProblem(await putInput(s.d, sid, message('x'), oldId()), 410, 'input_expired')
    assert.equal((await getSession(s.d, sid)).input_order, 0, 'nothing was admitted')
  })

  it('keeps images: the entry names them and serves the raw bytes with their type', async () => {
    const sid = await createSession(s.d)
    const r = await putInput(
      s.d,
      sid,
      message('what is this?', { images: [{ media_type: 'image/png', data: PNG }] }),
    )
    assert.equal(r.status, 202, r.text())
    const session = await waitSession(s.d, sid, idle)
    const user = session.history.items.find((e: any) => e.kind === 'user')
    assert.deepEqual(user.content.images, [{ field: 'image_0', media_type: 'image/png', bytes: 16 }])
    const img = await s.d.request({
      path: `/sessions/${sid}/history/${user.id}/image_0`,
      headers: { 'accept-encoding': 'zstd' },
    })
    assert.equal(img.status, 200)
    assert.equal(img.headers['content-type'], 'image/png')
    assert.equal(img.headers['content-encoding'], undefined)
    assert.deepEqual(img.body, Buffer.from(PNG, 'base64'))
    assertProblem(
      await s.d.request({ path: `/sessions/${sid}/history/${user.id}/image_9` }),
      404,
      'field_not_found',
    )
    assertProblem(await s.d.request({ path: `/sessions/${sid}/history/99/image_0` }), 404, 'entry_not_found')
    const sent = JSON.stringify(s.upstream.requests.at(-1)?.body)
    assert.ok(sent.includes(`data:image/png;base64,${PNG}`), 'the image went to the model')
  })

  it('reads inputs after the session is deleted; unknown ids are 404, old ones 410', async () => {
    const sid = await createSession(s.d)
    const r = await putInput(s.d, sid, message('keep me'))
    await waitSession(s.d, sid, idle)
    await deleteLeaf(s.d, sid)
    const read = await s.d.request({ path: `/sessions/${sid}/inputs/${r.inputId}` })
    assert.equal(read.status, 200)
    assert.equal(read.json().delivery, 'completed')
    assertProblem(await putInput(s.d, sid, message('late')), 410, 'session_deleted')
    const live = await createSession(s.d)
    assertProblem(await s.d.request({ path: `/sessions/${live}/inputs/${uuidv7()}` }), 404, 'input_not_found')
    assertProblem(await s.d.request({ path: `/sessions/${live}/inputs/${oldId()}` }), 410, 'input_expired')
  })

  it('rejects the 33rd waiting input with 429 queue_full and keeps that decision', async () => {
    const sid = await createSession(s.d)
    s.upstream.enqueue({ text: ['slow', 'er'], mode: 'stall', after: 1 })
    const running = await putInput(s.d, sid, message('first'))
    assert.equal(running.status, 202)
    await waitSession(s.d, sid, (x) => x.status.phase === 'running')
    const waiting = []
    for (let i = 0; i < 32; i++) waiting.push(await putInput(s.d, sid, message(`w${i}`)))
    for (const w of waiting) assert.equal(w.status, 202, w.text())
    const rejected = await putInput(s.d, sid, message('one too many'))
    assertProblem(rejected, 429, 'queue_full')
    assert.ok(Number(rejected.headers['retry-after']) > 0)
    const decision = (await s.d.request({ path: `/sessions/${sid}/inputs/${rejected.inputId}` })).json()
    assert.equal(decision.admission, 'rejected')
    assert.equal(decision.http_status, 429)
    assert.equal(decision.problem.code, 'queue_full')
    assert.equal(decision.acceptance_order, null)
    // Drain the queue: interrupt the stalled run and cancel every waiting input.
    const session = await getSession(s.d, sid)
    const stop = await post(s.d, `/sessions/${sid}/interrupt`, {
      run_id: session.status.run_id,
      through_input_order: session.input_order,
    })
    assert.equal(stop.status, 200, stop.text())
    assert.equal(stop.json().cancelled_inputs.length, 32)
    await waitSession(s.d, sid, idle)
    const repeat = await putInput(s.d, sid, message('one too many'), rejected.inputId)
    assertProblem(repeat, 429, 'queue_full')
  })
})
