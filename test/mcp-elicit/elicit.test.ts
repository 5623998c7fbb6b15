// MCP elicitation through the real daemon: a real SDK server (asking-server.ts) run by the
// session's kernel asks the person during its tool call; the question is the session's
// blocking reason and an input of kind `elicitation` answers it. Accepted content reaches the
// server and the tool's result; a decline and a cancel reach it as such; content that does
// not fit the form is a 422 with each field's error; a second answer is a 409; URL mode shows
// only web pages and records the server's completion; a question outside a run is refused
// at once; the call's timeout waits while the person does.
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { after, before, beforeEach, describe, it } from 'node:test'
import { assertProblem } from '../api/hostile.ts'
import { answer, callTools, toolResultsOf } from '../fakes/tool-script.ts'
import { logLines, until } from '../helpers/daemon.ts'
import { idle, message, putInput, waitSession } from '../inputs/helpers.ts'
import { openSse } from '../streams/sse-client.ts'
import { getSession, newSession } from '../tools/agent-helpers.ts'
import {
  type AskSetup,
  answerReached,
  answersOf,
  elicitationRows,
  reply,
  startAsking,
  waitAsked,
} from './helpers.ts'

const RUN_MS = 40_000

describe('MCP elicitation', () => {
  let s: AskSetup
  before(async () => {
    s = await startAsking()
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })
  beforeEach(() => s.upstream.reset())

  /** Has the model call `tool`, waits for the question; returns it, the session id and its stream. */
  async function asked(tool: string, args: Record<string, unknown> = {}) {
    const sid = await newSession(s)
    const live = openSse(s.d, `/sessions/${sid}?tail=0`)
    await live.next()
    s.upstream.enqueue(callTools({ name: `mcp__asker__${tool}`, arguments: args }), (req) =>
      answer(`the tool said ${toolResultsOf(req.body)[0]?.output}`),
    )
    const r = await putInput(s.d, sid, message(`call ${tool}`))
    assert.equal(r.status, 202)
    return { sid, live, reason: await waitAsked(s.d, sid) }
  }

  const toolOutput = () => toolResultsOf(s.upstream.requests[1].body)[0]?.output

  it('a form, accepted: the fields are shown, bad content is a 422, the content reaches the server and the result', async () => {
    const { sid, reason, live } = await asked('ask_form')
    assert.equal(reason.server, 'asker')
    assert.equal(reason.mode, 'form')
    assert.equal(reason.message, 'Who are you?')
    assert.equal(reason.url, null)
    const byName = Object.fromEntries(reason.fields.map((f: any) => [f.name, f]))
    assert.deepEqual(Object.keys(byName), ['name', 'age', 'color', 'tags', 'email', 'subscribe'])
    assert.equal(byName.name.required, true)
    assert.equal(byName.name.min_length, 2)
    assert.equal(byName.age.type, 'integer')
    assert.equal(byName.age.maximum, 150)
    assert.deepEqual(byName.color.options, [
      { value: 'red', title: 'Red' },
      { value: 'green', title: 'Green' },
    ])
    assert.equal(byName.color.default, 'green')
    assert.equal(byName.tags.type, 'array')
    assert.deepEqual(
      byName.tags.options.map((o: any) => o.value),
      ['a', 'b', 'c'],
    )
    assert.equal(byName.email.format, 'email')
    assert.equal(byName.subscribe.type, 'boolean')
    const blocked = await getSession(s.d, sid)
    assert.equal(blocked.status.phase, 'blocked')

    const bad = await reply(s.d, sid, reason.request_id, 'accept', {
      age: 3.5,
      color: 'blue',
      tags: ['a', 'z'],
      email: 'nope',
      extra: 1,
    })
    const p = assertProblem(bad, 422, 'elicitation_content_invalid')
    const errors = Object.fromEntries((p.errors as any[]).map((e) => [e.field, e.message]))
    assert.deepEqual(Object.keys(errors).sort(), ['age', 'color', 'email', 'extra', 'name', 'tags'])
    assert.equal(errors.name, 'is required')
    assert.equal(errors.age, 'must be an integer')
    assert.match(errors.email, /email/)
    assert.equal((await getSession(s.d, sid)).status.blocking_reason?.request_id, reason.request_id)
    assertProblem(
      await reply(s.d, sid, reason.request_id, 'decline', { name: 'x' }),
      422,
      'elicitation_content_invalid',
      'content with a decline',
    )

    const content = { name: 'Ada', age: 36, color: 'red', tags: ['a', 'c'], subscribe: true }
    const ok = await reply(s.d, sid, reason.request_id, 'accept', content)
    assert.equal(ok.status, 202, ok.text())
    assert.equal(ok.json().kind, 'elicitation')
    assert.deepEqual(ok.json().elicitation, { request_id: reason.request_id, action: 'accept', content })
    const done = await waitSession(s.d, sid, idle, RUN_MS)
    assert.equal(done.latest_answer.outcome, 'completed')
    assert.equal(toolOutput(), `accept: ${JSON.stringify(content)}`)
    assert.deepEqual((await answerReached(s.log, 'ask_form')).content, content)

    const again = await reply(s.d, sid, reason.request_id, 'decline')
    const p409 = assertProblem(again, 409, 'elicitation_not_pending')
    assert.match(String(p409.detail), /already accepted/)
    const repeat = await reply(s.d, sid, reason.request_id, 'accept', content, ok.inputId)
    assert.equal(repeat.status, 202, 'a repeat of the same input answers its decision')
    const [row] = elicitationRows(s.home, sid)
    assert.equal(row.state, 'accepted')
    assert.equal(row.answered_by, ok.inputId)

    const frames = await live.collect((f) => f.event === 'run.ended', RUN_MS)
    live.destroy()
    const kinds = frames.map((f) => f.event)
    assert.ok(kinds.indexOf('elicitation.requested') < kinds.indexOf('elicitation.answered'))
    const requested = JSON.parse(
      frames.find((f) => f.event === 'elicitation.requested')?.data ?? '{}',
    ).payload
    assert.equal(requested.request_id, reason.request_id)
    assert.equal(requested.call_id, row.call_id)
    const answered = JSON.parse(frames.find((f) => f.event === 'elicitation.answered')?.data ?? '{}').payload
    assert.deepEqual(answered.content, content)
    assert.equal(answered.action, 'accept')
    assert.equal(answered.input_id, ok.inputId)
  })

  for (const [action, done] of [
    ['decline', 'declined'],
    ['cancel', 'cancelled'],
  ] as const)
    it(`a form, ${done}: the server gets ${action} and the tool's result says so`, async () => {
      const { sid, reason, live } = await asked('ask_form')
      live.destroy()
      const r = await reply(s.d, sid, reason.request_id, action)
      assert.equal(r.status, 202, r.text())
      const read = await waitSession(s.d, sid, idle, RUN_MS)
      assert.equal(read.latest_answer.outcome, 'completed')
      assert.equal(toolOutput(), `${action}: null`)
      assert.equal(elicitationRows(s.home, sid)[0].state, done)
      assert.ok(answersOf(s.log).some((a) => a.tool === 'ask_form' && a.action === action))
    })

  it('a URL: shown with its message, accepted, and the server’s completion recorded as an event', async () => {
    const url = 'https://auth.example.com/start?x=1'
    const { sid, reason, live } = await asked('open_page', { url })
    assert.equal(reason.mode, 'url')
    assert.equal(reason.url, url)
    assert.equal(reason.elicitation_id, 'page-7')
    assert.equal(reason.fields, null)
    assertProblem(
      await reply(s.d, sid, reason.request_id, 'accept', { name: 'x' }),
      422,
      'elicitation_content_invalid',
    )
    assert.equal((await reply(s.d, sid, reason.request_id, 'accept')).status, 202)
    await waitSession(s.d, sid, idle, RUN_MS)
    assert.equal(toolOutput(), 'page: accept')
    const frames = await live.collect((f) => f.event === 'elicitation.completed', RUN_MS)
    live.destroy()
    const completed = JSON.parse(frames.at(-1)?.data ?? '{}').payload
    assert.deepEqual(completed, { server: 'asker', elicitation_id: 'page-7', request_id: reason.request_id })
  })

  it('a URL that is not a web page, or a question over 64 KiB, is declined at once, without blocking the session', async () => {
    const huge = `https://auth.example.com/${'a'.repeat(70_000)}`
    for (const url of ['file:///etc/passwd', 'http://example.com/login', huge]) {
      s.upstream.reset()
      const sid = await newSession(s)
      s.upstream.enqueue(callTools({ name: 'mcp__asker__open_page', arguments: { url } }), answer('ok'))
      await putInput(s.d, sid, message('open it'))
      const done = await waitSession(s.d, sid, idle, RUN_MS)
      assert.equal(done.latest_answer.outcome, 'completed')
      assert.equal(toolOutput(), 'page: decline', url.slice(0, 40))
      assert.equal(elicitationRows(s.home, sid).length, 0)
      const line = await until('the refusal in the log', () =>
        logLines(s.home, 'mcp elicitation refused').find(
          (l) => l.session_id === sid && l.action === 'decline',
        ),
      )
      assert.match(line.why, url === huge ? /larger than 65536 characters/ : /not https/)
    }
  })

  it('a question outside a run is refused (cancel) at once and noted in the log', async () => {
    const sid = await newSession(s)
    s.upstream.enqueue(callTools({ name: 'mcp__asker__ask_later', arguments: {} }), answer('done'))
    await putInput(s.d, sid, message('ask later'))
    await waitSession(s.d, sid, idle, RUN_MS)
    writeFileSync(s.trigger, 'now')
    const reached = await answerReached(s.log, 'ask_later')
    assert.equal(reached.action, 'cancel')
    const [line] = await until('the refusal in the log', () => {
      const lines = logLines(s.home, 'mcp elicitation refused').filter((l) => l.session_id === sid)
      return lines.length > 0 && lines
    })
    assert.equal(line.server, 'asker')
    assert.equal(line.action, 'cancel')
    const read = await getSession(s.d, sid)
    assert.equal(read.status.blocking_reason, null)
    assert.equal(read.status.phase, 'idle')
    assert.equal(elicitationRows(s.home, sid).length, 0)
  })

  it('two reads asking at once: the session shows the oldest question, then the next once it is answered', async () => {
    const sid = await newSession(s)
    s.upstream.enqueue(
      callTools(
        { name: 'mcp__asker__ask_read', arguments: { label: 'fruit' } },
        { name: 'mcp__asker__ask_read', arguments: { label: 'colour' } },
      ),
      (req) =>
        answer(
          toolResultsOf(req.body)
            .map((r) => r.output)
            .join(' | '),
        ),
    )
    await putInput(s.d, sid, message('ask two things'))
    await until('both questions asked', () => elicitationRows(s.home, sid).length === 2, 20_000, 20)
    const [first, second] = elicitationRows(s.home, sid)
    const shown = await waitAsked(s.d, sid)
    assert.equal(shown.request_id, first.id, 'the oldest is shown')
    const answerTo = (row: any) => (row.message === 'Which fruit?' ? 'pear' : 'blue')
    assert.equal((await reply(s.d, sid, first.id, 'accept', { pick: answerTo(first) })).status, 202)
    const next = await waitSession(s.d, sid, (x) => x.status.blocking_reason?.request_id === second.id)
    assert.equal(next.status.phase, 'blocked')
    assert.equal((await reply(s.d, sid, second.id, 'accept', { pick: answerTo(second) })).status, 202)
    const done = await waitSession(s.d, sid, idle, RUN_MS)
    assert.equal(done.latest_answer.outcome, 'completed')
    const outputs = toolResultsOf(s.upstream.requests[1].body).map((r) => r.output)
    assert.deepEqual(outputs.sort(), ['colour: accept {"pick":"blue"}', 'fruit: accept {"pick":"pear"}'])
  })

  it('an answer naming no request of the session is a 409', async () => {
    const sid = await newSession(s)
    assertProblem(
      await reply(s.d, sid, '0190f0f0-0000-7000-8000-000000000000', 'accept'),
      409,
      'elicitation_not_pending',
    )
  })
})
