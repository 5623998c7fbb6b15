// A step travels to the kernel as one JSON text (the channel's serializer copies a string
// whole); the kernel decodes it, and still takes a step sent as an object.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { deserialize, serialize } from 'node:v8'
import { decodeStep, encodeStep, type StepMessage } from '../../src/kernel/protocol.ts'

const step = {
  type: 'step',
  step_id: 'r:step:1',
  run_id: 'r',
  extension: 'openai-compatible',
  profile: { base_url: 'http://127.0.0.1:1', model: 'm' },
  request: {
    model: 'm',
    effort: null,
    system: 'be brief',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi ✓' }] }],
    tools: [{ name: 'read', description: 'reads', parameters: { type: 'object', properties: {} } }],
    session_id: 's',
  },
  tool_context: { session_id: 's', workspace: '/w', allowed_roots: [], sandbox: 'workspace-write' },
} as unknown as StepMessage

describe('the step message', () => {
  it('leaves as one text with the ids the pool routes by, and decodes to the step', () => {
    const sent = encodeStep(step)
    assert.deepEqual(Object.keys(sent).sort(), ['encoded', 'run_id', 'step_id', 'type'])
    assert.equal(typeof (sent as { encoded: unknown }).encoded, 'string')
    assert.equal(sent.type, 'step')
    // What the kernel receives is what the channel's serializer hands over.
    const received = deserialize(serialize(sent))
    assert.deepEqual(decodeStep(received), step)
  })

  it('decodes a step sent as an object as it is', () => {
    assert.equal(decodeStep(step as never), step)
  })
})
