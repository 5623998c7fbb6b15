// Compaction against the real daemon and the fake upstream: a 200-turn session is
// summarized by its model, the next turn sends the summary in place of the older turns
// (asserted on the body the upstream received), and the history still pages through all
// 200 turns. Also: the context summary, its sections and stale snapshots, the request log,
// strategies chosen although the compaction fails, and 409 while the session is busy.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { assertProblem } from '../api/hostile.ts'
import {
  idle,
  message,
  post,
  putInput,
  type Setup,
  startWithUpstream,
  waitSession,
} from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'

const TURNS = 200
const SUMMARY = 'SUMMARY: the user asked 198 numbered questions and got a greeting each time.'

/** A Chat Completions body's messages after its system message (the turn's system text). */
const conversation = (body: any) => body.messages.filter((m: any) => m.role !== 'system')

describe('compaction of a 200-turn session', () => {
  let s: Setup
  let sid: string
  before(async () => {
    s = await startWithUpstream({ protocol: 'chat_completions' })
    sid = await createSession(s.d)
    for (let i = 1; i <= TURNS; i++) {
      await putInput(s.d, sid, message(`question ${i}`))
      await waitSession(s.d, sid, (x) => idle(x) && x.input_order === i, 20_000)
    }
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })

  const get = async (path: string) => {
    const r = await s.d.request({ path })
    assert.equal(r.status, 200, r.text())
    return r.json()
  }
  const summary = () => get(`/sessions/${sid}/context`)

  /** Every entry of the history, following `newer` from the first page. */
  const allEntries = async () => {
    const items: any[] = []
    let page = await get(`/sessions/${sid}/history?after=0&limit=200`)
    items.push(...page.items)
    while (page.newer) {
      page = await get(`/sessions/${sid}/history?next=${encodeURIComponent(page.newer)}&limit=200`)
      items.push(...page.items)
    }
    return items
  }

  it('summarizes the context: sections whose token estimates add up', async () => {
    const c = await summary()
    assert.equal(c.view, 'summary')
    assert.equal(
      c.sections.reduce((n: number, x: any) => n + x.tokens, 0),
      c.estimated_tokens,
    )
    const history = c.sections.find((x: any) => x.id === 'history')
    const parts = history.parts
    assert.equal(
      parts.user + parts.assistant + parts.tool_results + parts.images + parts.framing,
      history.tokens,
    )
    // 'question N' and 'Hello, world!' per turn: the estimate follows the characters sent.
    let userChars = 0
    for (let i = 1; i <= TURNS; i++) userChars += `question ${i}`.length
    assert.equal(parts.user, Math.ceil(userChars / 4))
    assert.equal(parts.assistant, Math.ceil((TURNS * 'Hello, world!'.length) / 4))
    assert.equal(parts.framing, TURNS * 2 * 4)
    assert.deepEqual(
      {
        turns: c.history.turns,
        entries: c.history.entries,
        from: c.history.from_position,
        to: c.history.to_position,
      },
      { turns: TURNS, entries: 2 * TURNS, from: 1, to: 2 * TURNS },
    )
    assert.equal(c.history.compacted_through, null)
    assert.ok(c.tools.length > 0 && c.tools.every((t: any) => t.source === 'builtin'))
    const tools = c.sections.find((x: any) => x.id === 'tools')
    assert.equal(tools.count, c.tools.length)
    assert.equal(c.compaction.auto, true)
    assert.equal(c.compaction.strategy_source, 'settings')
  })

  it('pages a section under its snapshot; a stale snapshot is 410 context_changed', async () => {
    const c = await summary()
    const first = await get(
      `/sessions/${sid}/context?view=section&snapshot_id=${c.snapshot_id}&section_id=history&page=0`,
    )
    assert.equal(first.section_id, 'history')
    assert.match(first.text, /^\[user #1\]\nquestion 1\n\n\[assistant #2\]\nHello, world!/)
    const tools = await get(
      `/sessions/${sid}/context?view=section&snapshot_id=${c.snapshot_id}&section_id=tools&page=0`,
    )
    assert.ok(JSON.parse(tools.text).length === c.tools.length)
    assertProblem(
      await s.d.request({
        path: `/sessions/${sid}/context?view=section&snapshot_id=${c.snapshot_id}&section_id=history&page=${first.pages}`,
      }),
      404,
      'section_not_found',
    )
    // A turn moves the context on: the old snapshot no longer names it.
    await putInput(s.d, sid, message('one more'))
    await waitSession(s.d, sid, (x) => idle(x) && x.input_order === TURNS + 1)
    assertProblem(
      await s.d.request({
        path: `/sessions/${sid}/context?view=section&snapshot_id=${c.snapshot_id}&section_id=history&page=0`,
      }),
      410,
      'context_changed',
    )
  })

  it('refuses parameters of another view', async () => {
    assertProblem(
      await s.d.request({ path: `/sessions/${sid}/context?page=1` }),
      400,
      'invalid_context_query',
    )
    assertProblem(
      await s.d.request({ path: `/sessions/${sid}/context?view=section&section_id=history&page=0` }),
      400,
      'invalid_context_query',
    )
    assertProblem(
      await s.d.request({
        path: `/sessions/${sid}/context?view=section&snapshot_id=x&section_id=history&page=0&limit=2`,
      }),
      400,
      'invalid_context_query',
    )
    assertProblem(
      await s.d.request({ path: `/sessions/${sid}/context?view=requests&page=0` }),
      400,
      'invalid_context_query',
    )
  })

  it('is 409 session_busy while a turn runs, and compacts nothing', async () => {
    s.upstream.enqueue({ text: ['slow', ' answer'], delayMs: 400 })
    const before = await summary()
    await putInput(s.d, sid, message('a slow one'))
    await waitSession(s.d, sid, (x) => x.status.phase === 'running')
    assertProblem(await post(s.d, `/sessions/${sid}/compaction`, {}), 409, 'session_busy')
    await waitSession(s.d, sid, (x) => idle(x) && x.input_order === TURNS + 2)
    const c = await summary()
    assert.equal(c.history.compacted_through, null)
    assert.equal(c.history.turns, before.history.turns + 1)
  })

  it('keeps a chosen strategy although the compaction fails', async () => {
    s.upstream.enqueue({ status: 400, errorMessage: 'summary refused' })
    const high = (await summary()).history.high_water
    const r = await post(s.d, `/sessions/${sid}/compaction`, { strategy: 'summarize', keep_turns: 3 })
    assert.equal(r.status, 200, r.text())
    const result = r.json()
    assert.equal(result.selection.outcome, 'selected')
    assert.equal(result.compaction.outcome, 'failed')
    assert.equal(result.compaction.problem.code, 'upstream_rejected')
    assert.equal(result.compaction.entry, null)
    const c = await summary()
    assert.equal(c.history.high_water, high)
    assert.equal(c.history.compacted_through, null)
    assert.deepEqual(
      [c.compaction.strategy, c.compaction.keep_turns, c.compaction.strategy_source],
      ['summarize', 3, 'session'],
    )
  })

  it('summarizes the older turns with the session model, keeping the last turns verbatim', async () => {
    s.upstream.enqueue({ text: [SUMMARY] })
    const sent = s.upstream.requests.length
    const before = await summary()
    const r = await post(s.d, `/sessions/${sid}/compaction`, { keep_turns: 2 })
    assert.equal(r.status, 200, r.text())
    const result = r.json()
    // The session chose summarize (3 turns) before: this keeps 2, the strategy stays.
    assert.deepEqual(
      [result.selection.outcome, result.selection.strategy, result.selection.source],
      ['selected', 'summarize', 'request'],
    )
    assert.equal(result.compaction.outcome, 'completed', JSON.stringify(result))
    // 202 turns of two entries each: the last two turns (positions 401-404) stay verbatim.
    const e = result.compaction.entry
    assert.deepEqual([e.through_position, e.kept_from_position, e.compacted_turns], [400, 401, 200])
    assert.ok(e.tokens_after < e.tokens_before, JSON.stringify(e))
    assert.equal(e.tokens_before, before.estimated_tokens)
    // One request went upstream: the summary request, holding the older turns as a transcript.
    assert.equal(s.upstream.requests.length, sent + 1)
    const body = s.upstream.requests.at(-1)?.body
    assert.equal(body.model, 'fake-model')
    assert.equal('tools' in body, false)
    assert.match(body.messages[0].content, /You write the summary/)
    const transcript = body.messages[1].content as string
    assert.match(transcript, /\[user #1\]\nquestion 1\n/)
    assert.match(transcript, /question 200\n/)
    assert.doesNotMatch(transcript, /a slow one/) // the kept turns are not summarized
  })

  it('sends the summary in later requests while the history keeps all 200 turns', async () => {
    await putInput(s.d, sid, message('after the compaction'))
    await waitSession(
      s.d,
      sid,
      (x) => idle(x) && x.latest_answer?.text === 'Hello, world!' && x.input_order === TURNS + 3,
    )
    const body = s.upstream.requests.at(-1)?.body
    const sent = conversation(body)
    const texts = sent.map((m: any) => `${m.role}: ${m.content}`)
    // The summary, the two kept turns verbatim, then the new message: nothing older.
    assert.equal(sent.length, 1 + 4 + 1, texts.join('\n'))
    assert.equal(sent[0].role, 'user')
    assert.ok(sent[0].content.includes(SUMMARY), texts[0])
    assert.deepEqual(
      sent.slice(1).map((m: any) => m.content),
      ['one more', 'Hello, world!', 'a slow one', 'slow answer', 'after the compaction'],
    )
    assert.ok(!JSON.stringify(body).includes('question 1"'), 'an old turn was sent')
    // The history is whole: every question, the compaction entry where it happened.
    const entries = await allEntries()
    const questions = entries.filter((x) => x.kind === 'user' && /^question \d+$/.test(x.content.text))
    assert.equal(questions.length, TURNS)
    assert.deepEqual(
      questions.map((x) => x.content.text),
      Array.from({ length: TURNS }, (_, i) => `question ${i + 1}`),
    )
    const marks = entries.filter((x) => x.kind === 'compaction')
    assert.equal(marks.length, 1)
    assert.equal(marks[0].content.text, SUMMARY)
    const full = await get(`/sessions/${sid}/history/${marks[0].position}`)
    assert.equal(full.text, SUMMARY)
    // Checkpoints show where it happened.
    const cp = await get(`/sessions/${sid}/history?view=checkpoints&limit=5`)
    const mark = cp.items.find((x: any) => x.kind === 'compaction')
    assert.ok(mark, JSON.stringify(cp.items))
    assert.equal(mark.position, marks[0].position)
    assert.deepEqual(
      [mark.compaction.strategy, mark.compaction.trigger, mark.compaction.through_position],
      ['summarize', 'manual', 400],
    )
  })

  it('shows the compaction in the summary and the requests sent', async () => {
    const c = await summary()
    const section = c.sections.find((x: any) => x.id === 'compaction')
    assert.ok(section)
    assert.equal(c.history.compacted_through, 400)
    assert.equal(c.history.from_position, 401)
    assert.equal(
      c.sections.reduce((n: number, x: any) => n + x.tokens, 0),
      c.estimated_tokens,
    )
    const text = await get(
      `/sessions/${sid}/context?view=section&snapshot_id=${c.snapshot_id}&section_id=compaction&page=0`,
    )
    assert.ok(text.text.includes(SUMMARY))
    // The request log: every model request, the summary request among them, paged.
    const first = await get(`/sessions/${sid}/context?view=requests&limit=100`)
    assert.equal(first.items.length, 100)
    assert.deepEqual(
      first.items.map((x: any) => x.id),
      Array.from({ length: 100 }, (_, i) => i + 1),
    )
    const records: any[] = [...first.items]
    let next = first.next
    while (next) {
      const page = await get(
        `/sessions/${sid}/context?view=requests&limit=100&next=${encodeURIComponent(next)}`,
      )
      records.push(...page.items)
      next = page.next
    }
    // 203 turns, a failed and a completed summary request.
    assert.equal(records.length, TURNS + 3 + 2)
    const summaries = records.filter((x) => x.purpose === 'compaction')
    assert.equal(summaries.length, 2)
    const last = records.at(-1)
    assert.equal(last.purpose, 'turn')
    assert.equal(last.compaction_id, summaries[1].compaction_id)
    assert.equal(last.history.from_position, 401)
    assert.ok(last.tools.length > 0)
    // The provider's own count of each turn's request (the fake reports 12 prompt tokens).
    assert.equal(last.usage.prompt_tokens, 12)
    assert.equal(summaries[0].usage, null)
    assert.equal(
      last.estimate.instructions +
        last.estimate.tools +
        last.estimate.compaction +
        last.estimate.history.tokens,
      last.estimate.total,
    )
    const after = await get(`/sessions/${sid}/context?view=requests&after=${last.id - 1}`)
    assert.deepEqual(
      after.items.map((x: any) => x.id),
      [last.id],
    )
    assert.equal(after.next, null)
  })

  it('truncates without a model call, and reports nothing to compact', async () => {
    const sent = s.upstream.requests.length
    const r = (await post(s.d, `/sessions/${sid}/compaction`, { strategy: 'truncate', keep_turns: 1 })).json()
    assert.equal(r.selection.outcome, 'selected')
    assert.equal(r.compaction.outcome, 'completed')
    assert.equal(s.upstream.requests.length, sent)
    const again = (await post(s.d, `/sessions/${sid}/compaction`, {})).json()
    assert.equal(again.compaction.outcome, 'unchanged')
    await putInput(s.d, sid, message('after truncation'))
    await waitSession(s.d, sid, (x) => idle(x) && x.input_order === TURNS + 4)
    const body = s.upstream.requests.at(-1)?.body
    assert.match(conversation(body)[0].content, /its first 202 turn\(s\) were left out/)
    assert.equal(body.messages.at(-1).content, 'after truncation')
  })
})
