// session/prompt through `hearth acp` against a real daemon and the scripted fake upstream:
// the answer and the reasoning streamed as chunks, tool calls with kind, title, locations,
// content and diffs, prompt content (resource links, embedded resources, images) reaching
// the model, the stop reason, and a failed run answered as a JSON-RPC error.
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { methods } from '@agentclientprotocol/sdk'
import { answer, callTools } from '../fakes/tool-script.ts'
import { runCli } from '../helpers/daemon.ts'
import { acpFixture } from './fixture.ts'
import { allowOnce } from './helpers.ts'

// A 1×1 PNG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

describe('hearth acp: session/prompt', () => {
  const acp = acpFixture('ws', { onPermission: allowOnce })
  const { newSession, prompt } = acp

  it('streams the reasoning and the answer as chunks and ends the turn', async () => {
    const sid = await newSession()
    acp.s.upstream.enqueue({ reasoning: ['Thinking ', 'it over.'], text: ['Hello ', 'from ', 'hearth.'] })
    const r = await prompt(sid, 'hi')
    assert.equal(r.stopReason, 'end_turn')
    assert.equal(acp.editor.text(sid), 'Hello from hearth.')
    assert.equal(acp.editor.text(sid, 'agent_thought_chunk'), 'Thinking it over.')
    // The editor's own prompt is not echoed back as a user message.
    assert.equal(acp.editor.of(sid, 'user_message_chunk').length, 0)
    acp.editor.assertStdoutIsProtocol()
  })

  it('shows a read with its kind, title and absolute location, then its output', async () => {
    const sid = await newSession()
    writeFileSync(join(acp.workspace, 'notes.txt'), 'line one\nline two\n')
    acp.s.upstream.enqueue(
      callTools({ name: 'read', arguments: { path: 'notes.txt', offset: 2 } }),
      answer('Read it.'),
    )
    const r = await prompt(sid, 'read notes')
    assert.equal(r.stopReason, 'end_turn')
    const [call] = acp.editor.of(sid, 'tool_call')
    assert.equal(call.kind, 'read')
    assert.equal(call.status, 'pending')
    assert.match(call.title, /notes\.txt/)
    assert.deepEqual(call.locations, [{ path: join(acp.workspace, 'notes.txt'), line: 2 }])
    const updates = acp.editor.of(sid, 'tool_call_update').filter((u) => u.toolCallId === call.toolCallId)
    assert.equal(updates[0].status, 'in_progress')
    const last = updates.at(-1)
    assert.equal(last.status, 'completed')
    assert.match(last.content[0].content.text, /line two/)
    assert.equal(acp.editor.text(sid), 'Read it.')
  })

  it('shows an edit as a diff and a command with its output; the file is changed', async () => {
    const sid = await newSession()
    writeFileSync(join(acp.workspace, 'a.txt'), 'old text\n')
    acp.s.upstream.enqueue(
      callTools({ name: 'edit', arguments: { path: 'a.txt', old_string: 'old', new_string: 'new' } }),
      callTools({ name: 'shell', arguments: { command: 'echo printed-by-shell' } }),
      answer('Done.'),
    )
    const r = await prompt(sid, 'change it')
    assert.equal(r.stopReason, 'end_turn')
    assert.equal(readFileSync(join(acp.workspace, 'a.txt'), 'utf8'), 'new text\n')
    const [edit, shell] = acp.editor.of(sid, 'tool_call')
    assert.equal(edit.kind, 'edit')
    assert.deepEqual(edit.content, [
      { type: 'diff', path: join(acp.workspace, 'a.txt'), oldText: 'old', newText: 'new' },
    ])
    const editEnd = acp.editor.of(sid, 'tool_call_update').findLast((u) => u.toolCallId === edit.toolCallId)
    assert.equal(editEnd.status, 'completed')
    assert.equal(editEnd.content[0].type, 'diff')
    assert.equal(shell.kind, 'execute')
    const shellEnd = acp.editor.of(sid, 'tool_call_update').findLast((u) => u.toolCallId === shell.toolCallId)
    assert.equal(shellEnd.status, 'completed')
    assert.match(shellEnd.content[0].content.text, /printed-by-shell/)
  })

  it('sends resource links, embedded resources and images to the model', async () => {
    const sid = await newSession()
    acp.s.upstream.enqueue(answer('Seen.'))
    const before = acp.s.upstream.requests.length
    const r = await acp.editor.agent.request(methods.agent.session.prompt, {
      sessionId: sid,
      prompt: [
        { type: 'text', text: 'Look at ' },
        { type: 'resource_link', uri: `file://${acp.workspace}/linked.ts`, name: 'linked.ts' },
        {
          type: 'resource',
          resource: {
            uri: `file://${acp.workspace}/open.ts`,
            text: 'const unsaved = 42',
            mimeType: 'text/plain',
          },
        },
        { type: 'image', mimeType: 'image/png', data: PNG },
      ],
    })
    assert.equal(r.stopReason, 'end_turn')
    const body = JSON.stringify(acp.s.upstream.requests[before].body)
    assert.match(body, /Look at \[@linked\.ts\]\([^)]*linked\.ts\)/)
    assert.match(body, /const unsaved = 42/)
    assert.match(body, /open\.ts/)
    assert.match(body, /data:image\/png;base64,|"image\/png"/)
  })

  it('refuses audio with invalid params and keeps serving', async () => {
    const sid = await newSession()
    await assert.rejects(
      acp.editor.agent.request(methods.agent.session.prompt, {
        sessionId: sid,
        prompt: [{ type: 'audio', mimeType: 'audio/wav', data: 'AAAA' }],
      }),
      (err: any) => err.code === -32602 && /audio/.test(err.message),
    )
    acp.s.upstream.enqueue(answer('Still here.'))
    assert.equal((await prompt(sid, 'again')).stopReason, 'end_turn')
  })

  it('answers a failed run with a JSON-RPC error carrying its problem', async () => {
    const sid = await newSession()
    acp.s.upstream.failTimes(1, 400, { message: 'bad request from the fake' })
    await assert.rejects(prompt(sid, 'fail please'), (err: any) => {
      assert.match(err.message, /upstream_rejected/)
      assert.equal(err.data.code, 'upstream_rejected')
      return true
    })
  })

  it('ends a run stopped by the step limit with max_turn_requests', async () => {
    const sid = await newSession()
    const set = (group: string, patch: unknown) =>
      runCli(['config', 'set', group, JSON.stringify(patch), '--home', acp.s.d.home])
    assert.equal((await set('tools', { max_steps: 1, approval_policy: 'auto' })).code, 0)
    try {
      acp.s.upstream.enqueue(callTools({ name: 'list', arguments: {} }))
      assert.equal((await prompt(sid, 'keep going')).stopReason, 'max_turn_requests')
    } finally {
      await set('tools', { max_steps: null, approval_policy: null })
    }
  })

  it('ends an answer cut at the model’s output limit with max_tokens', async () => {
    const sid = await newSession()
    acp.s.upstream.enqueue({ text: ['Cut ', 'short'], finish: 'length' })
    assert.equal((await prompt(sid, 'say a lot')).stopReason, 'max_tokens')
    assert.equal(acp.editor.text(sid), 'Cut short')
  })

  it('ends an answer the provider filtered with refusal', async () => {
    const sid = await newSession()
    const frame = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`
    acp.s.upstream.enqueue({
      raw:
        frame({ type: 'response.created', response: { id: 'r' } }) +
        frame({
          type: 'response.incomplete',
          response: {
            id: 'r',
            status: 'incomplete',
            incomplete_details: { reason: 'content_filter' },
            output: [],
            usage: { input_tokens: 1, output_tokens: 0, total_tokens: 1 },
          },
        }),
    })
    assert.equal((await prompt(sid, 'something refused')).stopReason, 'refusal')
  })

  it('refuses images for a model known not to take them', async () => {
    const sid = await newSession()
    const set = (patch: unknown) =>
      runCli(['config', 'set', 'models', JSON.stringify(patch), '--home', acp.s.d.home])
    assert.equal((await set({ overrides: { 'fake-model': { image_input: false } } })).code, 0)
    try {
      await assert.rejects(
        acp.editor.agent.request(methods.agent.session.prompt, {
          sessionId: sid,
          prompt: [
            { type: 'text', text: 'see' },
            { type: 'image', mimeType: 'image/png', data: PNG },
          ],
        }),
        (err: any) => err.code === -32602 && /does not take images/.test(err.message),
      )
    } finally {
      await set({ overrides: null })
    }
  })

  it('tells how full the context is after a run, against the model’s window', async () => {
    const sid = await newSession()
    const set = (patch: unknown) =>
      runCli(['config', 'set', 'models', JSON.stringify(patch), '--home', acp.s.d.home])
    assert.equal((await set({ overrides: { 'fake-model': { context_window: 10_000 } } })).code, 0)
    try {
      acp.s.upstream.enqueue(answer('Counted.', { usage: { input: 1200, output: 34 } }))
      assert.equal((await prompt(sid, 'count')).stopReason, 'end_turn')
      const usage = await acp.editor.until(
        () => acp.editor.of(sid, 'usage_update')[0],
        10_000,
        'the usage update',
      )
      assert.deepEqual(usage, { sessionUpdate: 'usage_update', used: 1234, size: 10_000 })
    } finally {
      await set({ overrides: null })
    }
  })

  it('answers an unknown session with session not found', async () => {
    await assert.rejects(
      prompt('0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', 'hi'),
      (err: any) => err.code === -32002,
    )
  })
})
