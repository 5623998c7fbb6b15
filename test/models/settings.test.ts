// The models settings group as GET /models applies it: cache rules that win over the
// built-in table, and per-model overrides that win over the catalogue's facts.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startDaemon, type TestDaemon } from '../helpers/daemon.ts'
import { change } from '../settings/helpers.ts'

describe('models settings seen by GET /models', () => {
  let d: TestDaemon
  before(async () => {
    d = await startDaemon()
  })
  after(async () => {
    await d.stop()
  })

  it('a cache rule from settings wins over the built-in one it matches', async () => {
    const q = '/models?view=cache-policy&extension=claude'
    assert.equal((await d.request({ path: q })).json().matched.source, 'built-in')
    const off = { mode: 'off', key: null, retention: null, ttl_seconds: null, breakpoints: null }
    await change(d, 'models', { cache_rules: [{ extension: 'claude', host: '', policy: off }] })
    const res = (await d.request({ path: q })).json()
    assert.deepEqual(res.matched, { extension: 'claude', host: '', source: 'settings' })
    assert.deepEqual(res.policy, off)
  })

  it('overrides replace catalogue facts for listed and manual models', async () => {
    const listed = async (model: string) =>
      (await d.request({ path: `/models?provider=openai&model=${model}` })).json().items[0]
    const before = await listed('gpt-4o')
    assert.equal(before.listed, true)
    await change(d, 'models', {
      overrides: {
        'gpt-4o': { context_window: 4242, reasoning: true },
        'my-local-model': { max_output_tokens: 777 },
      },
    })
    const after = await listed('gpt-4o')
    assert.equal(after.context_window, 4242)
    assert.equal(after.reasoning, true)
    assert.equal(after.max_output_tokens, before.max_output_tokens)
    const manual = await listed('my-local-model')
    assert.equal(manual.listed, false)
    assert.equal(manual.max_output_tokens, 777)
    assert.equal(manual.context_window, null)
  })
})
