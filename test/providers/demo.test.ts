import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict'
import { test } from 'node:test'
import { reply, startDemoUpstream } from '../../src/providers/demo/upstream.ts'
import { openaiCompatible } from '../../src/providers/openai-compatible/transport.ts'
import type { NeutralEvent } from '../../src/providers/types.ts'
import { collect, request } from './openai-compatible/helpers.ts'

test('the demo upstream streams a friendly reply through the real transport', async () => {
  const demo = await startDemoUpstream({ wordDelayMs: 1 })
  try {
    ok(demo.url.startsWith('http://127.0.0.1:') && demo.url.endsWith('/v1'), demo.url)
    const profile = {
      endpoint: demo.url,
      protocol: 'responses' as const,
      model: 'hearth-demo',
      api_key: null,
    }
    const req = request({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What can you do?' }] }],
    })
    const events = await collect(
      openaiCompatible.stream(profile, req, { signal: new AbortController().signal }),
    )
    const deltas = events.filter((e) => e.type === 'text_delta')
    ok(deltas.length > 20, 'streamed word by word')
    const answer = deltas.map((e) => (e.type === 'text_delta' ? e.delta : '')).join('')
    strictEqual(answer, reply('What can you do?'))
    ok(answer.includes('You asked: “What can you do?”') && answer.includes('demo profile'))
    deepStrictEqual(events[0], { type: 'start' })
    const [usage, done] = events.slice(-2) as NeutralEvent[]
    ok(
      usage.type === 'usage' &&
        usage.usage.completion_tokens === deltas.length &&
        (usage.usage.prompt_tokens ?? 0) > 0,
    )
    deepStrictEqual(done, { type: 'done', stop_reason: 'stop' })
  } finally {
    await demo.close()
  }
})

test('the demo upstream stops writing when the client aborts, and closes cleanly mid-stream', async () => {
  const demo = await startDemoUpstream({ wordDelayMs: 30 })
  const profile = { endpoint: demo.url, protocol: 'responses' as const, model: 'hearth-demo', api_key: null }
  const ctrl = new AbortController()
  const events: NeutralEvent[] = []
  for await (const event of openaiCompatible.stream(profile, request(), { signal: ctrl.signal })) {
    events.push(event)
    if (event.type === 'text_delta') ctrl.abort()
  }
  deepStrictEqual(events.at(-1), {
    type: 'error',
    code: 'aborted',
    message: 'the request was aborted',
    status: null,
  })
  const res = await fetch(`${demo.url}/models`)
  deepStrictEqual(((await res.json()) as any).data[0].id, 'hearth-demo')
  await demo.close()
})
