// GET /models?view=cache-policy against a real daemon, and the rule matching itself with
// user rules (which come from settings; here passed in directly).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  BUILT_IN_RULES,
  type CacheRule,
  cacheUsage,
  matchCachePolicy,
  runCachePolicy,
} from '../../src/models/cache-policy.ts'
import { assertProblem } from '../api/hostile.ts'
import { startDaemon, type TestDaemon } from '../helpers/daemon.ts'

const NO_HINTS = { mode: 'implicit', key: null, retention: null, ttl_seconds: null, breakpoints: null }
const SESSION_KEY = { ...NO_HINTS, key: 'session' }
const BREAKPOINTS = { ...NO_HINTS, mode: 'explicit', ttl_seconds: 300, breakpoints: 4 }

describe('GET /models?view=cache-policy', () => {
  let d: TestDaemon
  const get = (q: Record<string, string>) =>
    d.request({ path: `/models?${new URLSearchParams({ view: 'cache-policy', ...q })}` })
  const policy = async (q: Record<string, string>) => {
    const res = await get(q)
    assert.equal(res.status, 200, res.text())
    return res.json()
  }

  before(async () => {
    d = await startDaemon()
  })
  after(async () => {
    await d.stop()
  })

  it('defaults both selectors to "" and answers the catch-all rule', async () => {
    assert.deepEqual(await policy({}), {
      view: 'cache-policy',
      extension: '',
      host: '',
      matched: { extension: '', host: '', source: 'built-in' },
      policy: NO_HINTS,
    })
  })

  it('picks the most specific built-in rule', async () => {
    const cases: [Record<string, string>, { extension: string; host: string }, unknown][] = [
      [
        { extension: 'openai-compatible', host: 'api.openai.com' },
        { extension: 'openai-compatible', host: 'api.openai.com' },
        SESSION_KEY,
      ],
      [
        { extension: 'openai-compatible', host: 'https://API.OpenAI.com:443/v1' },
        { extension: 'openai-compatible', host: 'api.openai.com' },
        SESSION_KEY,
      ],
      [
        { extension: 'openai-compatible', host: 'api.openai.com:443' },
        { extension: 'openai-compatible', host: 'api.openai.com' },
        SESSION_KEY,
      ],
      [{ extension: 'openai-compatible', host: 'llm.example.com' }, { extension: '', host: '' }, NO_HINTS],
      [{ extension: 'openai-compatible' }, { extension: '', host: '' }, NO_HINTS],
      [{ host: 'api.openai.com' }, { extension: '', host: '' }, NO_HINTS],
      [{ extension: 'chatgpt', host: 'chatgpt.com' }, { extension: 'chatgpt', host: '' }, SESSION_KEY],
      [{ extension: 'claude' }, { extension: 'claude', host: '' }, BREAKPOINTS],
      [
        { extension: 'bedrock', host: 'bedrock-runtime.us-east-1.amazonaws.com' },
        { extension: 'bedrock', host: '' },
        BREAKPOINTS,
      ],
      [
        { extension: 'vertex', host: 'us-central1-aiplatform.googleapis.com' },
        { extension: 'vertex', host: '' },
        NO_HINTS,
      ],
      [{ extension: 'antigravity' }, { extension: 'antigravity', host: '' }, NO_HINTS],
    ]
    for (const [q, matched, expected] of cases) {
      const body = await policy(q)
      assert.deepEqual(body.matched, { ...matched, source: 'built-in' }, JSON.stringify(q))
      assert.deepEqual(body.policy, expected, JSON.stringify(q))
      assert.equal(body.extension, q.extension ?? '')
      assert.equal(body.host, q.host ?? '')
    }
  })

  it('takes a 256-character extension and a 4096-character host', async () => {
    assert.equal((await policy({ extension: 'e'.repeat(256), host: 'h'.repeat(4096) })).matched.host, '')
  })

  it('refuses a 257-character extension and a 4097-character host', async () => {
    assertProblem(await get({ extension: 'e'.repeat(257) }), 400, 'invalid_parameter')
    assertProblem(await get({ host: 'h'.repeat(4097) }), 400, 'invalid_parameter')
  })

  it('refuses catalogue parameters', async () => {
    const catalogueOnly: Record<string, string>[] = [
      { provider: 'openai' },
      { provider_profile: 'p' },
      { endpoint: 'https://api.openai.com/v1' },
      { model: 'gpt-5' },
      { limit: '5' },
      { next: 'abc' },
    ]
    for (const q of catalogueOnly) {
      assertProblem(await get(q), 400, 'invalid_model_query', JSON.stringify(q))
    }
  })

  it('refuses an unknown parameter', async () => {
    assertProblem(await get({ colour: 'blue' }), 400, 'unknown_parameter')
  })
})

describe('cache rule matching', () => {
  const off = { mode: 'off', key: null, retention: null, ttl_seconds: null, breakpoints: null } as const
  const hour = { ...off, mode: 'explicit', ttl_seconds: 3600, breakpoints: 4 } as const

  it('ends the built-in table in a catch-all, so there is always a match', () => {
    assert.ok(BUILT_IN_RULES.some((r) => r.extension === '' && r.host === ''))
    assert.equal(matchCachePolicy([], 'anything', 'any.host').source, 'built-in')
  })

  it('consults user rules first: any user match wins over a more specific built-in rule', () => {
    const user: CacheRule[] = [{ extension: '', host: '', policy: off }]
    const m = matchCachePolicy(user, 'openai-compatible', 'api.openai.com')
    assert.equal(m.source, 'settings')
    assert.deepEqual(m.rule.policy, off)
  })

  it('falls back to the built-in table when no user rule matches', () => {
    const user: CacheRule[] = [{ extension: 'claude', host: 'example.com', policy: hour }]
    const m = matchCachePolicy(user, 'claude', 'api.anthropic.com')
    assert.equal(m.source, 'built-in')
    assert.equal(m.rule.extension, 'claude')
  })

  it('prefers host over extension, both over either, and the first of equals', () => {
    const rule = (extension: string, host: string, ttl: number): CacheRule => ({
      extension,
      host,
      policy: { ...hour, ttl_seconds: ttl },
    })
    const user = [
      rule('', '', 1),
      rule('claude', '', 2),
      rule('', 'Gw.Example.com', 3),
      rule('claude', '', 4),
    ]
    const ttl = (ext: string, host: string) => matchCachePolicy(user, ext, host).rule.policy.ttl_seconds
    assert.equal(ttl('claude', 'other.example'), 2)
    assert.equal(ttl('claude', 'gw.example.com'), 3)
    assert.equal(ttl('bedrock', 'https://gw.example.com/v1'), 3)
    assert.equal(ttl('bedrock', ''), 1)
    assert.equal(
      matchCachePolicy([...user, rule('claude', 'gw.example.com.', 5)], 'claude', 'GW.example.com').rule
        .policy.ttl_seconds,
      5,
    )
  })
})

describe("a turn's cache fields in usage", () => {
  const at = Date.parse('2026-11-28T12:00:00.000Z')
  const warm = { cached_prompt_tokens: 900, cache_write_tokens: 100 }

  it('an explicit policy gives its ttl and when the cached tokens go cold', () => {
    const policy = runCachePolicy([], 'claude', null)
    assert.deepEqual(cacheUsage(policy, warm, at), {
      cache_ttl_seconds: 300,
      cache_fade: [{ tokens: 1000, expires_at: '2026-11-28T12:05:00.000Z' }],
    })
  })

  it('implicit and off policies, and a turn that cached nothing, claim no lifetime', () => {
    const implicit = runCachePolicy([], 'openai-compatible', 'https://api.openai.com/v1')
    assert.equal(implicit.key, 'session')
    assert.deepEqual(cacheUsage(implicit, warm, at), { cache_ttl_seconds: null, cache_fade: [] })
    const off = runCachePolicy(
      [{ extension: 'bedrock', host: '', policy: { ...implicit, mode: 'off', key: null } }],
      'bedrock',
      null,
    )
    assert.deepEqual(cacheUsage(off, warm, at), { cache_ttl_seconds: null, cache_fade: [] })
    const cold = { cached_prompt_tokens: 0, cache_write_tokens: null }
    assert.deepEqual(cacheUsage(runCachePolicy([], 'bedrock', null), cold, at), {
      cache_ttl_seconds: null,
      cache_fade: [],
    })
  })

  it("a user rule's ttl wins over the built-in one", () => {
    const hour: CacheRule = {
      extension: 'claude',
      host: '',
      policy: { mode: 'explicit', key: null, retention: null, ttl_seconds: 3600, breakpoints: 4 },
    }
    assert.equal(cacheUsage(runCachePolicy([hour], 'claude', null), warm, at).cache_ttl_seconds, 3600)
  })
})
