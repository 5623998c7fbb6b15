// The pure parts of `hearth acp`: live events and history entries as session/update
// notifications (one mapping for both), the stop reason of a run's outcome, the permission
// options and what each answer means, prompt content as a message.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { RequestError } from '@agentclientprotocol/sdk'
import { answerOf, permissionOptions } from '../../src/acp/permission.ts'
import { stopReasonOf } from '../../src/acp/prompt.ts'
import { messageOf } from '../../src/acp/prompt-input.ts'
import {
  fenced,
  newMappingState,
  updatesOfEntry,
  updatesOfEvent,
  usageUpdates,
} from '../../src/acp/updates.ts'

const ev = (kind: string, payload: Record<string, unknown>) => ({ kind, payload })
const entry = (kind: string, content: Record<string, unknown>) => ({ id: '1', kind, content })

describe('updates of live events', () => {
  it('streams text as message chunks and reasoning as thought chunks', () => {
    const state = newMappingState('/ws')
    assert.deepEqual(updatesOfEvent(ev('output.started', { content_id: 'r', kind: 'reasoning' }), state), [])
    updatesOfEvent(ev('output.started', { content_id: 't', kind: 'text' }), state)
    assert.deepEqual(updatesOfEvent(ev('output.delta', { content_id: 'r', delta: 'hmm' }), state), [
      { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hmm' } },
    ])
    assert.deepEqual(updatesOfEvent(ev('output.delta', { content_id: 't', delta: 'Hi' }), state), [
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hi' } },
    ])
    updatesOfEvent(ev('run.ended', { run_id: 'x', outcome: 'completed' }), state)
    assert.equal(state.outputs.size, 0)
  })

  it('shows a call from its entry to its end: kind, title, locations, diffs, output', () => {
    const state = newMappingState('/ws')
    const args = JSON.stringify({ path: 'src/a.ts', old_string: 'a', new_string: 'b' })
    const [call] = updatesOfEvent(
      ev('entry.added', {
        entry: entry('tool_call', { call_id: 'c1', name: 'edit', arguments: args, summary: 'edit src/a.ts' }),
      }),
      state,
    )
    assert.deepEqual(call, {
      sessionUpdate: 'tool_call',
      toolCallId: 'c1',
      title: 'edit src/a.ts',
      kind: 'edit',
      status: 'pending',
      locations: [{ path: '/ws/src/a.ts' }],
      rawInput: { path: 'src/a.ts', old_string: 'a', new_string: 'b' },
      content: [{ type: 'diff', path: '/ws/src/a.ts', oldText: 'a', newText: 'b' }],
    })
    assert.deepEqual(updatesOfEvent(ev('tool.started', { call_id: 'c1' }), state), [
      { sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'in_progress' },
    ])
    const [end] = updatesOfEvent(
      ev('tool.ended', { call_id: 'c1', outcome: 'ok', output: 'edited', meta: {} }),
      state,
    ) as any[]
    assert.equal(end.status, 'completed')
    assert.equal(end.content[0].type, 'diff')
    assert.equal(end.content[1].content.text, fenced('edited'))
    assert.equal(state.calls.size, 0)
  })

  it('keeps the end of a command’s output as it streams, fenced', () => {
    const state = newMappingState('/ws')
    updatesOfEvent(
      ev('entry.added', {
        entry: entry('tool_call', {
          call_id: 'c2',
          name: 'shell',
          arguments: '{"command":"ls"}',
          summary: 'shell: ls',
        }),
      }),
      state,
    )
    updatesOfEvent(ev('tool.progress', { call_id: 'c2', stream: 'stdout', text: 'a\n' }), state)
    const [u] = updatesOfEvent(
      ev('tool.progress', { call_id: 'c2', stream: 'stdout', text: '```b\n' }),
      state,
    ) as any[]
    assert.equal(u.content[0].content.text, '````\na\n```b\n````')
    const big = 'x'.repeat(40_000)
    const [v] = updatesOfEvent(
      ev('tool.progress', { call_id: 'c2', stream: 'stdout', text: big }),
      state,
    ) as any[]
    assert.ok(v.content[0].content.text.length < 17_000)
  })

  it('says what a denied call was refused', () => {
    const state = newMappingState('/ws')
    const [end] = updatesOfEvent(
      ev('tool.ended', { call_id: 'c3', outcome: 'denied', output: '', meta: {} }),
      state,
    ) as any[]
    assert.equal(end.status, 'failed')
    assert.match(end.content[0].content.text, /denied/)
  })

  it('maps a search to its folder and unknown tools to other', () => {
    const state = newMappingState('/ws')
    const [grep] = updatesOfEvent(
      ev('entry.added', {
        entry: entry('tool_call', {
          call_id: 'g',
          name: 'grep',
          arguments: '{"pattern":"x"}',
          summary: 'grep x',
        }),
      }),
      state,
    ) as any[]
    assert.equal(grep.kind, 'search')
    assert.deepEqual(grep.locations, [{ path: '/ws' }])
    const [mcp] = updatesOfEvent(
      ev('entry.added', {
        entry: entry('tool_call', { call_id: 'm', name: 'mcp__s__t', arguments: 'not json' }),
      }),
      state,
    ) as any[]
    assert.equal(mcp.kind, 'other')
    assert.deepEqual(mcp.rawInput, {})
  })

  it('gives nothing for events an editor does not show', () => {
    const state = newMappingState('/ws')
    for (const kind of ['session.visited', 'approval.requested', 'kernel.jobs_changed', 'input.accepted'])
      assert.deepEqual(updatesOfEvent(ev(kind, {}), state), [])
    assert.deepEqual(
      updatesOfEvent(ev('entry.added', { entry: entry('assistant', { text: 'x' }) }), state),
      [],
    )
  })
})

describe('updates of history entries (a replay)', () => {
  it('replays messages, answers, reasoning, calls with results, and errors', () => {
    const state = newMappingState('/ws')
    const replayed = [
      entry('user', { text: 'please', images: [{ field: 'image_0' }] }),
      entry('reasoning', { text: 'thinking' }),
      entry('assistant', { text: 'Writing.' }),
      entry('tool_call', {
        call_id: 'w',
        name: 'write',
        arguments: '{"path":"n.txt","content":"new"}',
        summary: 'write n.txt',
      }),
      entry('tool_result', { call_id: 'w', name: 'write', outcome: 'ok', output: 'wrote 3 bytes', meta: {} }),
      entry('error', { problem: { code: 'upstream_timeout', title: 'The provider stopped' } }),
      entry('note', { text: 'internal' }),
    ].flatMap((e) => updatesOfEntry(e, state)) as any[]
    assert.deepEqual(
      replayed.map((u) => u.sessionUpdate),
      [
        'user_message_chunk',
        'user_message_chunk',
        'agent_thought_chunk',
        'agent_message_chunk',
        'tool_call',
        'tool_call_update',
        'agent_message_chunk',
      ],
    )
    assert.equal(replayed[1].content.text, '[1 image]')
    assert.deepEqual(replayed[5].content, [
      { type: 'diff', path: '/ws/n.txt', oldText: null, newText: 'new' },
    ])
    assert.match(replayed[6].content.text, /upstream_timeout/)
  })
})

describe('usage', () => {
  it('gives the context’s fill once the window is known', () => {
    assert.deepEqual(usageUpdates({ total_tokens: 50, context_window_tokens: 1000 }), [
      { sessionUpdate: 'usage_update', used: 50, size: 1000 },
    ])
    assert.deepEqual(usageUpdates({ prompt_tokens: 40, completion_tokens: 2, context_window_tokens: 100 }), [
      { sessionUpdate: 'usage_update', used: 42, size: 100 },
    ])
    assert.deepEqual(usageUpdates({ total_tokens: 50, context_window_tokens: null }), [])
    assert.deepEqual(usageUpdates(null), [])
  })
})

describe('stop reasons', () => {
  it('maps each outcome as the protocol means it', () => {
    assert.equal(stopReasonOf('completed', null), 'end_turn')
    assert.equal(stopReasonOf('completed', null, 'length'), 'max_tokens')
    assert.equal(stopReasonOf('completed', null, 'content_filter'), 'refusal')
    assert.equal(stopReasonOf('interrupted', null), 'cancelled')
    assert.equal(stopReasonOf('failed', { code: 'step_limit_reached' }), 'max_turn_requests')
    assert.equal(stopReasonOf('failed', { code: 'upstream_blocked' }), 'refusal')
    const failed = stopReasonOf('failed', { code: 'upstream_timeout', title: 'The provider stopped' })
    assert.ok(failed instanceof RequestError)
    assert.equal(failed.message, 'upstream_timeout: The provider stopped')
    const restarted = stopReasonOf('interrupted', { code: 'daemon_restarted', title: 'The daemon stopped' })
    assert.ok(restarted instanceof RequestError)
    const signedOut = stopReasonOf('failed', { code: 'signed_out', title: 'No account' }) as RequestError
    assert.equal(signedOut.code, -32000)
  })
})

describe('permission options', () => {
  it('names what always covers, and maps each option to hearth’s answer', () => {
    const request = {
      request_id: 'q',
      tool: 'shell',
      summary: 'shell: npm test',
      effect: 'exec',
      run_id: 'r',
      call_id: 'c',
      arguments: '{"command":"npm test"}',
    }
    const options = permissionOptions(request)
    assert.equal(options[1].name, 'Always allow `npm test` in this session')
    const pick = (optionId: string) => answerOf({ outcome: { outcome: 'selected', optionId } })
    assert.deepEqual(pick('allow_once'), { decision: 'allow', remember: 'once' })
    assert.deepEqual(pick('allow_always'), { decision: 'allow', remember: 'session' })
    assert.deepEqual(pick('reject_once'), { decision: 'deny', remember: 'once' })
    assert.equal(pick('something_else'), undefined)
    assert.equal(answerOf({ outcome: { outcome: 'cancelled' } }), undefined)
  })
})

describe('prompt content', () => {
  it('keeps text and links inline and puts embedded context apart', () => {
    const m = messageOf([
      { type: 'text', text: 'Fix ' },
      { type: 'resource_link', uri: 'file:///ws/a%20b.ts', name: 'a b.ts' },
      { type: 'text', text: ' please.' },
      { type: 'resource', resource: { uri: 'file:///ws/c.ts', text: 'let c = 1' } },
    ])
    assert.equal(m.text, 'Fix [@a b.ts](/ws/a b.ts) please.\n\nContext from /ws/c.ts:\n```\nlet c = 1\n```')
    assert.deepEqual(m.images, [])
  })

  it('takes png, jpeg and webp images and refuses other types and empty prompts', () => {
    assert.equal(messageOf([{ type: 'image', mimeType: 'image/jpeg', data: 'AA==' }]).images.length, 1)
    assert.throws(() => messageOf([{ type: 'image', mimeType: 'image/gif', data: 'AA==' }]), /image\/gif/)
    assert.throws(() => messageOf([]), /empty/)
  })
})
