// A copilot profile through the daemon, its Copilot API played by the fake upstream (its
// `/v1/models` answering Copilot's list): GET /models lists the account's models with their
// facts and caches them under the home; the list outlives the fake (offline, stale); each
// run's step goes to the wire Copilot serves the session's model on.
import assert from 'node:assert/strict'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { FakeOpenAIUpstream } from '../fakes/openai-upstream.ts'
import { runCli, startDaemon, type TestDaemon, until } from '../helpers/daemon.ts'
import { idle, message, putInput, waitSession } from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'
import { ACCOUNT, COPILOT_MODELS, copilotHome } from './copilot-helpers.ts'

const cachePath = (home: string) => join(home, 'cache', 'copilot-models.json')

describe('copilot models through the daemon', () => {
  let api: FakeOpenAIUpstream
  let d: TestDaemon
  const listings = () => api.requests.filter((r) => r.path === '/v1/models')
  const listed = async () => {
    const r = await d.request({ path: '/models?provider_profile=cp' })
    assert.equal(r.status, 200, r.text())
    return r.json()
  }

  before(async () => {
    api = await FakeOpenAIUpstream.start()
    api.models = COPILOT_MODELS
    d = await startDaemon({ home: copilotHome(), env: { HEARTH_COPILOT_API_URL: `${api.url}/v1` } })
  })
  after(async () => {
    await d.stop()
    await api.close()
  })

  it('lists nothing before start-up asks: no listing runs as the daemon starts', () => {
    assert.equal(listings().length, 0)
  })

  it('GET /models lists the account’s models with their facts, and caches them under the home', async () => {
    const body = await listed()
    assert.equal(body.extension, 'copilot')
    assert.equal(body.provider, 'github-copilot')
    assert.equal(body.source.kind, 'cache')
    assert.deepEqual(
      body.items.map((m: any) => m.id),
      ['gpt-4.1', 'gpt-5-mini', 'gpt-5.2-codex'],
      'the Messages-only model is left out',
    )
    const [chat, , codex] = body.items
    assert.equal(codex.name, 'GPT-5.2-Codex')
    assert.equal(codex.context_window, 400000)
    assert.equal(codex.max_output_tokens, 128000)
    assert.equal(codex.reasoning, true)
    assert.equal(codex.tool_call, true)
    assert.equal(codex.listed, true)
    assert.equal(codex.cap_key, 'github-copilot/gpt-5.2-codex')
    assert.equal(chat.image_input, true)
    assert.equal(chat.context_window, 128000)
    const sent = listings()
    assert.equal(sent.length, 1)
    assert.equal(sent[0].headers.authorization, `Bearer ${ACCOUNT.access}`)
    assert.match(String(sent[0].headers['user-agent']), /^hearth\//, 'direct mode: hearth’s own name')
    assert.equal(sent[0].headers['openai-intent'], 'conversation-edits')
    const cached = JSON.parse(readFileSync(cachePath(d.home), 'utf8'))
    assert.deepEqual(
      cached.models.map((m: any) => [m.id, m.wire]),
      [
        ['gpt-5.2-codex', 'responses'],
        ['gpt-4.1', 'chat_completions'],
        ['gpt-5-mini', 'responses'],
      ],
    )
    // One model's row, and the same listing again from the cache (no second listing).
    const one = await d.request({ path: '/models?provider_profile=cp&model=gpt-5.2-codex' })
    assert.equal(one.json().items[0].context_window, 400000)
    await listed()
    assert.equal(listings().length, 1, 'fresh for an hour')
  })

  it('sends each session’s step to the wire Copilot serves its model on', async () => {
    const asked = api.requests.length
    const onResponses = await createSession(d, {
      kind: 'new',
      workspace: d.home,
      provider_profile: 'cp',
      model: 'gpt-5.2-codex',
    })
    await putInput(d, onResponses, message('which wire'))
    const done = await waitSession(d, onResponses, idle)
    assert.equal(done.latest_answer.outcome, 'completed')
    assert.equal(done.usage.context_window_tokens, 400000, 'the window Copilot’s list gives')
    const onChat = await createSession(d, {
      kind: 'new',
      workspace: d.home,
      provider_profile: 'cp',
      model: 'gpt-4.1',
    })
    await putInput(d, onChat, message('which wire'))
    assert.equal((await waitSession(d, onChat, idle)).latest_answer.outcome, 'completed')
    const onBoth = await createSession(d, {
      kind: 'new',
      workspace: d.home,
      provider_profile: 'cp',
      model: 'gpt-5-mini',
    })
    await putInput(d, onBoth, message('which wire'))
    assert.equal((await waitSession(d, onBoth, idle)).latest_answer.outcome, 'completed')
    const steps = api.requests.slice(asked).filter((r) => r.method === 'POST')
    assert.deepEqual(
      steps.map((r) => [r.path, r.body.model]),
      [
        ['/v1/responses', 'gpt-5.2-codex'],
        ['/v1/chat/completions', 'gpt-4.1'],
        ['/v1/responses', 'gpt-5-mini'],
      ],
    )
    assert.equal(steps[0].headers.authorization, `Bearer ${ACCOUNT.access}`)
  })

  it('a model the list does not name goes by its name', async () => {
    const asked = api.requests.length
    const sid = await createSession(d, {
      kind: 'new',
      workspace: d.home,
      provider_profile: 'cp',
      model: 'gpt-5',
    })
    await putInput(d, sid, message('unlisted'))
    assert.equal((await waitSession(d, sid, idle)).latest_answer.outcome, 'completed')
    const step = api.requests.slice(asked).find((r) => r.method === 'POST')
    assert.equal(step?.path, '/v1/responses')
  })

  it('a stale list is listed again by the next run, in the background', async () => {
    const file = JSON.parse(readFileSync(cachePath(d.home), 'utf8'))
    const old = { ...file, fetched_at: Date.now() - 2 * 3600_000 }
    writeFileSync(cachePath(d.home), JSON.stringify(old))
    api.models = [...COPILOT_MODELS, { ...COPILOT_MODELS[1], id: 'gpt-4o' }]
    const sid = await createSession(d, {
      kind: 'new',
      workspace: d.home,
      provider_profile: 'cp',
      model: 'gpt-4.1',
    })
    await putInput(d, sid, message('refresh in the background'))
    await waitSession(d, sid, idle)
    await until('the list refreshed by the run', () =>
      JSON.parse(readFileSync(cachePath(d.home), 'utf8')).models.some((m: any) => m.id === 'gpt-4o'),
    )
    assert.ok((await listed()).items.some((m: any) => m.id === 'gpt-4o'))
  })

  it('hearth models refresh dates the list stale; catalogue rows add the facts the list leaves out', async () => {
    const catalogue = {
      'github-copilot': {
        id: 'github-copilot',
        models: {
          'gpt-4.1': { id: 'gpt-4.1', name: 'ignored', knowledge: '2024-04', cost: { input: 0, output: 0 } },
        },
      },
    }
    const server = createServer((_req, res) => res.writeHead(200).end(JSON.stringify(catalogue)))
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api.json`
      const r = await runCli(['models', 'refresh', '--url', url, '--home', d.home])
      assert.equal(r.code, 0, r.stderr)
    } finally {
      server.close()
    }
    const dated = JSON.parse(readFileSync(cachePath(d.home), 'utf8'))
    assert.equal(dated.fetched_at, 0, 'stale')
    assert.ok(dated.models.length >= 2, 'kept for use')
    const before = listings().length
    const body = await listed()
    const chat = body.items.find((m: any) => m.id === 'gpt-4.1')
    assert.equal(chat.name, 'GPT-4.1', 'the list’s own facts win')
    assert.equal(chat.context_window, 128000)
    assert.equal(chat.knowledge, '2024-04', 'the catalogue adds what the list leaves out')
    assert.deepEqual(chat.cost, { input: 0, output: 0, cache_read: null, cache_write: null })
    await until('listed again', () => listings().length > before)
    await until('a fresh list', () => JSON.parse(readFileSync(cachePath(d.home), 'utf8')).fetched_at > 0)
  })

  it('keeps listing the cached models with the API gone, stale or not', async () => {
    const gone = await FakeOpenAIUpstream.start()
    gone.models = COPILOT_MODELS
    const offline = await startDaemon({
      home: copilotHome(),
      env: { HEARTH_COPILOT_API_URL: `${gone.url}/v1` },
    })
    const ids = async () => {
      const r = await offline.request({ path: '/models?provider_profile=cp' })
      assert.equal(r.status, 200, r.text())
      return r.json().items.map((m: any) => m.id)
    }
    try {
      assert.deepEqual(await ids(), ['gpt-4.1', 'gpt-5-mini', 'gpt-5.2-codex'])
      const path = cachePath(offline.home)
      const file = JSON.parse(readFileSync(path, 'utf8'))
      // Stale, and the API refuses the listing: the cached models are answered and kept.
      gone.models = null
      const stale = Date.now() - 2 * 3600_000
      writeFileSync(path, JSON.stringify({ ...file, fetched_at: stale }))
      const before = gone.requests.length
      assert.deepEqual(
        await ids(),
        ['gpt-4.1', 'gpt-5-mini', 'gpt-5.2-codex'],
        'stale: answered from the cache',
      )
      await until('the listing refused', () =>
        gone.requests.slice(before).some((r) => r.path === '/v1/models' && r.completed),
      )
      assert.deepEqual(
        await ids(),
        ['gpt-4.1', 'gpt-5-mini', 'gpt-5.2-codex'],
        'the failed listing kept the list',
      )
      assert.equal(JSON.parse(readFileSync(path, 'utf8')).fetched_at, stale)
      // Fresh again, and the API gone: the models are read from the cache alone.
      writeFileSync(path, JSON.stringify(file))
      await gone.close()
      assert.deepEqual(
        await ids(),
        ['gpt-4.1', 'gpt-5-mini', 'gpt-5.2-codex'],
        'offline: read from the cache',
      )
    } finally {
      await offline.stop()
    }
  })

  it('passes over a broken cache file and lists the profile’s model as a manual row', async () => {
    const home = copilotHome({ account: null, model: 'gpt-4.1' })
    mkdirSync(join(home, 'cache'), { recursive: true })
    writeFileSync(cachePath(home), '{"version":1,"fetched_at":')
    const bare = await startDaemon({ home })
    try {
      const r = await bare.request({ path: '/models?provider_profile=cp' })
      assert.equal(r.status, 200, r.text())
      const body = r.json()
      assert.deepEqual(
        body.items.map((m: any) => [m.id, m.listed]),
        [['gpt-4.1', false]],
        'no account, no gh, no list: the configured model only',
      )
    } finally {
      await bare.stop()
    }
  })
})
