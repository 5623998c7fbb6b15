// Reasoning streamed beside tool calls goes back with them on Chat Completions: the real
// daemon against the fake upstream speaking `chat.completion.chunk` with
// `delta.reasoning_content` (as DeepSeek's and Kimi's thinking models stream it). Those
// servers answer 400 to a tool loop whose assistant message lacks it.
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { answer, callTools, toolResultsOf } from '../fakes/tool-script.ts'
import { type AgentSetup, newSession, runMessage, startAgent } from '../tools/agent-helpers.ts'

describe('reasoning_content replay (chat_completions)', () => {
  let s: AgentSetup
  before(async () => {
    s = await startAgent({ protocol: 'chat_completions', tools: { approval_policy: 'auto' } })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })

  it('the assistant message with tool_calls carries the reasoning it came with; a plain answer does not', async () => {
    writeFileSync(join(s.workspace, 'todo.txt'), 'ship it\n')
    const sid = await newSession(s)
    s.upstream.enqueue(
      {
        ...callTools({ name: 'read', arguments: { path: 'todo.txt' }, id: 'call_t1' }),
        reasoning: ['The user wants ', 'the todo file.'],
      },
      (req) => ({
        ...answer(`It says ${toolResultsOf(req.body)[0]?.output.trim()}`),
        reasoning: ['Now answer.'],
      }),
    )
    const read = await runMessage(s, sid, 'what is on my list?')
    assert.equal(read.status.phase, 'idle')
    assert.equal(s.upstream.requests.length, 2)
    const withCalls = s.upstream.requests[1].body.messages.find((m: any) => m.tool_calls)
    assert.equal(withCalls.reasoning_content, 'The user wants the todo file.')

    s.upstream.enqueue(answer('Done.'))
    await runMessage(s, sid, 'thanks')
    const third = s.upstream.requests[2].body.messages
    const assistants = third.filter((m: any) => m.role === 'assistant')
    assert.equal(assistants.length, 2)
    assert.equal(assistants[0].reasoning_content, 'The user wants the todo file.')
    // Reasoning is sent only beside tool calls, never on a plain answer.
    assert.equal('reasoning_content' in assistants[1], false, JSON.stringify(assistants[1]))
  })
})
