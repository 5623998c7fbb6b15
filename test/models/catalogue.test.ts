// GET /models, catalogue view, against a real daemon answering from the shipped snapshot:
// provider and profile mapping, one-row reads, manual ids, paging, and the parameter rules.
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { assertProblem } from '../api/hostile.ts'
import { startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'

const CONFIG = {
  providers: {
    default_profile: 'p',
    profiles: {
      p: { endpoint: 'https://api.openai.com/v1', protocol: 'responses', model: 'gpt-x-unlisted' },
      local: { endpoint: 'http://127.0.0.1:9/v1', protocol: 'chat_completions', model: 'my-local-model' },
      listed: { endpoint: 'https://openrouter.ai/api/v1', protocol: 'responses', model: 'openai/gpt-5' },
    },
  },
}

const NULL_FACTS = {
  name: null,
  context_window: null,
  max_output_tokens: null,
  reasoning: null,
  tool_call: null,
  image_input: null,
  attachment: null,
  temperature: null,
  open_weights: null,
  input_modalities: null,
  output_modalities: null,
  knowledge: null,
  release_date: null,
  last_updated: null,
  cost: { input: null, output: null, cache_read: null, cache_write: null },
}

function qs(q: Record<string, string | number>): string {
  return new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)])).toString()
}

describe('GET /models, catalogue view', () => {
  let d: TestDaemon
  const get = (q: Record<string, string | number>) => d.request({ path: `/models?${qs(q)}` })
  const ok = async (q: Record<string, string | number>) => {
    const res = await get(q)
    assert.equal(res.status, 200, res.text())
    return res.json()
  }
  /** Every row of a listing, following next with the given page size. */
  const walk = async (q: Record<string, string | number>, limit: number) => {
    const ids: string[] = []
    let next: string | null = null
    let pages = 0
    do {
      const body: any = await ok({ ...q, limit, ...(next ? { next } : {}) })
      assert.ok(body.items.length <= limit)
      ids.push(...body.items.map((r: { id: string }) => r.id))
      next = body.next
      assert.ok(++pages < 1000, 'paging ends')
    } while (next !== null)
    return { ids, pages }
  }

  before(async () => {
    const home = tempHome()
    writeFileSync(join(home, 'config.json'), JSON.stringify(CONFIG))
    d = await startDaemon({ home })
  })
  after(async () => {
    await d.stop()
  })

  it('lists a catalogue provider by id, sorted, with its facts', async () => {
    const body = await ok({ provider: 'anthropic' })
    assert.equal(body.view, 'catalogue')
    assert.equal(body.provider, 'anthropic')
    assert.equal(body.extension, null)
    assert.equal(body.provider_profile, null)
    assert.equal(body.endpoint, null)
    assert.equal(body.source.kind, 'snapshot')
    assert.match(body.source.updated_at, /^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/)
    assert.equal(body.next, null)
    const ids = body.items.map((r: { id: string }) => r.id)
    assert.deepEqual(ids, [...ids].sort())
    assert.ok(body.items.every((r: any) => r.listed && r.provider === 'anthropic'))
    assert.ok(body.items.every((r: any) => r.cap_key === `anthropic/${r.id}`))
    const sonnet = body.items.find((r: { id: string }) => r.id === 'claude-sonnet-4-5-20250929')
    assert.deepEqual(sonnet, {
      id: 'claude-sonnet-4-5-20250929',
      name: 'Claude Sonnet 4.5',
      provider: 'anthropic',
      cap_key: 'anthropic/claude-sonnet-4-5-20250929',
      listed: true,
      context_window: 200000,
      max_output_tokens: 64000,
      reasoning: true,
      tool_call: true,
      image_input: true,
      attachment: true,
      temperature: true,
      open_weights: false,
      input_modalities: ['text', 'image'],
      output_modalities: ['text'],
      knowledge: '2025-07-31',
      release_date: '2025-09-29',
      last_updated: '2025-09-29',
      cost: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
    })
  })

  it('reports an unstated fact as null, not as false or 0', async () => {
    const body = await ok({ provider: 'openai', model: 'gpt-5' })
    assert.equal(body.items[0].cost.cache_write, null)
    assert.equal(body.items[0].cost.input, 1.25)
  })

  it('maps extensions (and an openai-compatible endpoint host) to catalogue providers', async () => {
    const cases: [Record<string, string>, string | null][] = [
      [{ provider: 'chatgpt' }, 'openai'],
      [{ provider: 'claude' }, 'anthropic'],
      [{ provider: 'antigravity' }, 'google'],
      [{ provider: 'bedrock' }, 'amazon-bedrock'],
      [{ provider: 'vertex' }, 'google-vertex'],
      [{ provider: 'openai-compatible', endpoint: 'https://api.openai.com/v1' }, 'openai'],
      [{ provider: 'openai-compatible', endpoint: 'https://OpenRouter.ai/api/v1' }, 'openrouter'],
      [{ provider: 'openai-compatible', endpoint: 'http://127.0.0.1:8080/v1' }, null],
      [{ provider: 'openai-compatible' }, null],
    ]
    for (const [q, provider] of cases) {
      const body = await ok(q)
      assert.equal(body.provider, provider, JSON.stringify(q))
      assert.equal(body.extension, q.provider, JSON.stringify(q))
      assert.equal(body.endpoint, q.endpoint ?? null)
      if (provider === null) assert.deepEqual(body.items, [], JSON.stringify(q))
      else assert.ok(body.items.length > 0 && body.items.every((r: any) => r.provider === provider))
    }
  })

  it('answers 404 provider_not_found for a name that is neither extension nor catalogue provider', async () => {
    assertProblem(await get({ provider: 'no-such-provider' }), 404, 'provider_not_found')
  })

  it('maps a profile by its extension and endpoint host; its unlisted model is a manual row', async () => {
    const body = await ok({ provider_profile: 'p' })
    assert.equal(body.provider_profile, 'p')
    assert.equal(body.extension, 'openai-compatible')
    assert.equal(body.endpoint, 'https://api.openai.com/v1')
    assert.equal(body.provider, 'openai')
    const ids = body.items.map((r: { id: string }) => r.id)
    assert.deepEqual(ids, [...ids].sort())
    assert.ok(ids.includes('gpt-5'))
    const manual = body.items.filter((r: any) => !r.listed)
    assert.deepEqual(manual, [
      {
        id: 'gpt-x-unlisted',
        provider: 'openai',
        cap_key: 'manual/gpt-x-unlisted',
        listed: false,
        ...NULL_FACTS,
      },
    ])
  })

  it('lists a profile model the catalogue has only once, as listed', async () => {
    const body = await ok({ provider_profile: 'listed', limit: 200 })
    assert.equal(body.provider, 'openrouter')
    const rows = body.items.filter((r: { id: string }) => r.id === 'openai/gpt-5')
    assert.equal(rows.length, 1)
    assert.equal(rows[0].listed, true)
    assert.equal(rows[0].cap_key, 'openrouter/openai/gpt-5')
  })

  it('gives a profile on an unknown host only its model, as a manual row', async () => {
    const body = await ok({ provider_profile: 'local' })
    assert.equal(body.provider, null)
    assert.deepEqual(body.items, [
      {
        id: 'my-local-model',
        provider: null,
        cap_key: 'manual/my-local-model',
        listed: false,
        ...NULL_FACTS,
      },
    ])
    assert.equal(body.next, null)
  })

  it('answers 404 profile_not_found for an unknown profile', async () => {
    assertProblem(await get({ provider_profile: 'nope' }), 404, 'profile_not_found')
  })

  it('model= returns exactly the listed row', async () => {
    const body = await ok({ provider: 'openai', model: 'gpt-5' })
    assert.equal(body.items.length, 1)
    assert.equal(body.items[0].id, 'gpt-5')
    assert.equal(body.items[0].listed, true)
    assert.equal(body.items[0].cap_key, 'openai/gpt-5')
    assert.equal(body.items[0].context_window, 400000)
    assert.equal(body.next, null)
  })

  it('model= with an unlisted id returns one manual row with null facts', async () => {
    for (const [q, provider] of [
      [{ provider_profile: 'p', model: 'my-finetune' }, 'openai'],
      [{ provider: 'anthropic', model: 'claude-future' }, 'anthropic'],
      [{ provider: 'openai-compatible', endpoint: 'http://127.0.0.1:1/v1', model: 'x/y:z' }, null],
    ] as const) {
      const body = await ok(q)
      assert.deepEqual(body.items, [
        { id: q.model, provider, cap_key: `manual/${q.model}`, listed: false, ...NULL_FACTS },
      ])
      assert.equal(body.next, null)
    }
  })

  it('pages through every row with next: no duplicate, no gap, in id order', async () => {
    const all = await ok({ provider: 'openrouter', limit: 200 })
    assert.equal(all.next, null)
    const expected = all.items.map((r: { id: string }) => r.id)
    assert.ok(expected.length > 50, `openrouter lists ${expected.length} models`)
    for (const limit of [1, 7, 50, expected.length - 1, expected.length]) {
      const { ids, pages } = await walk({ provider: 'openrouter' }, limit)
      assert.deepEqual(ids, expected, `limit ${limit}`)
      assert.equal(pages, Math.ceil(expected.length / limit), `limit ${limit}`)
    }
  })

  it('pages a profile listing with its manual row in place', async () => {
    const all = await ok({ provider_profile: 'p', limit: 200 })
    const { ids } = await walk({ provider_profile: 'p' }, 4)
    assert.deepEqual(
      ids,
      all.items.map((r: { id: string }) => r.id),
    )
    assert.ok(ids.includes('gpt-x-unlisted'))
  })

  it('refuses a continuation from another listing or a forged one', async () => {
    const first = await ok({ provider: 'openrouter', limit: 2 })
    assertProblem(await get({ provider: 'openai', next: first.next }), 400, 'invalid_continuation')
    assertProblem(
      await get({ provider: 'openai-compatible', endpoint: 'https://openrouter.ai/', next: first.next }),
      400,
      'invalid_continuation',
    )
    assertProblem(await get({ provider: 'openrouter', next: `${first.next}x` }), 400, 'invalid_continuation')
    // The page size may change between pages.
    assert.equal((await get({ provider: 'openrouter', limit: 5, next: first.next })).status, 200)
  })

  describe('parameter rules', () => {
    const bad = (q: Record<string, string | number>, code: string, what: string) =>
      it(what, async () => {
        assertProblem(await get(q), 400, code, what)
      })

    bad({}, 'invalid_model_query', 'neither provider_profile nor provider')
    bad({ view: 'catalogue' }, 'invalid_model_query', 'view=catalogue alone')
    bad(
      { provider_profile: 'p', provider: 'openai' },
      'invalid_model_query',
      'both provider_profile and provider',
    )
    bad({ endpoint: 'https://api.openai.com/v1' }, 'invalid_model_query', 'endpoint alone')
    bad(
      { provider_profile: 'p', endpoint: 'https://api.openai.com/v1' },
      'invalid_model_query',
      'endpoint with provider_profile',
    )
    bad({ provider: 'openai', extension: 'claude' }, 'invalid_model_query', 'extension in the catalogue view')
    bad({ provider: 'openai', host: 'api.openai.com' }, 'invalid_model_query', 'host in the catalogue view')
    bad({ provider: 'openai', model: 'gpt-5', next: 'abc' }, 'invalid_model_query', 'model with next')
    bad({ provider: 'openai', hostile: '1' }, 'unknown_parameter', 'an unknown query parameter')
    bad({ provider: 'openai', view: 'list' }, 'invalid_parameter', 'an unknown view')
    for (const limit of ['0', '201', '-1', '1.5', 'abc', '']) {
      bad({ provider: 'openai', limit }, 'invalid_parameter', `limit=${limit}`)
    }
    bad({ provider: 'openai', endpoint: 'not a uri' }, 'invalid_parameter', 'endpoint that is not a URI')
    const long = `https://example.com/${'a'.repeat(4097 - 'https://example.com/'.length)}`
    bad({ provider: 'openai-compatible', endpoint: long }, 'invalid_parameter', '4097-character endpoint')
    bad({ provider: '' }, 'invalid_parameter', 'empty provider')
    bad({ provider_profile: '' }, 'invalid_parameter', 'empty provider_profile')
    bad({ provider: 'openai', model: '' }, 'invalid_parameter', 'empty model')

    it('takes a 4096-character endpoint', async () => {
      const endpoint = `https://example.com/${'a'.repeat(4096 - 'https://example.com/'.length)}`
      const body = await ok({ provider: 'openai-compatible', endpoint })
      assert.equal(body.endpoint, endpoint)
    })

    it('names the parameter that failed', async () => {
      const p = assertProblem(await get({ provider: 'openai', limit: 0 }), 400, 'invalid_parameter')
      assert.match(String(p.detail), /limit/)
    })
  })
})
