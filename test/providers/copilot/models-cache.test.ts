// The Copilot model list cached under the home: written after a listing against the fake
// GitHub over a real socket, read with the fake stopped, listed again when stale, kept when
// a listing fails, passed over when the file is broken; and the wire of a model by name.
import assert from 'node:assert/strict'
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { exchangeCopilotToken } from '../../../src/providers/copilot/account.ts'
import { githubUrls } from '../../../src/providers/copilot/constants.ts'
import { COPILOT_MODELS_TTL_MS, CopilotModelCache } from '../../../src/providers/copilot/model-cache.ts'
import { wireByName } from '../../../src/providers/copilot/models.ts'
import type { StoredCredential } from '../../../src/providers/shared/sign-in-plugin.ts'
import { FakeGitHub } from '../../fakes/github.ts'
import { tempHome } from '../../helpers/daemon.ts'

let gh: FakeGitHub
let credential: StoredCredential
before(async () => {
  gh = await FakeGitHub.start()
  const github = gh.issue({ id: 7, login: 'octocat', copilot: true })
  const signal = new AbortController().signal
  credential = {
    type: 'oauth',
    ...(await exchangeCopilotToken({ urls: githubUrls(gh.url), fetch, signal }, github)),
  }
})
after(() => gh.close())

const modelsCalls = () => gh.requests.filter((r) => r.path === '/copilot/models').length
const write = (cache: CopilotModelCache, text: string) => {
  mkdirSync(dirname(cache.path), { recursive: true })
  writeFileSync(cache.path, text)
}

describe('the copilot model cache', () => {
  it('writes the listing under HOME/cache and reads it back, with the facts of each model', async () => {
    const home = tempHome()
    const cache = new CopilotModelCache(home)
    assert.equal(cache.current(), null)
    assert.equal(cache.stale(), true, 'no list is stale')
    assert.equal(await cache.refresh(credential), true)
    assert.equal(cache.path, `${home}/cache/copilot-models.json`)
    assert.equal(statSync(cache.path).mode & 0o777, 0o600)
    const list = new CopilotModelCache(home).current()
    assert.ok(list)
    assert.equal(cache.stale(), false)
    assert.deepEqual(list.models[0], {
      id: 'gpt-5.2-codex',
      wire: 'responses',
      name: 'GPT-5.2-Codex',
      contextWindow: 400000,
      maxOutputTokens: 128000,
      imageInput: null,
      toolCalls: true,
      efforts: ['low', 'medium', 'high'],
    })
    assert.equal(cache.wireOf('gpt-4.1'), 'chat_completions')
    assert.equal(cache.wireOf('gpt-5.2-codex'), 'responses')
    assert.equal(cache.wireOf('unknown-model'), null)
  })

  it('is read with the fake stopped, and a listing that cannot reach it keeps the list', async () => {
    const offline = await FakeGitHub.start()
    const github = offline.issue({ id: 8, login: 'hubot', copilot: true })
    const signal = new AbortController().signal
    const own: StoredCredential = {
      type: 'oauth',
      ...(await exchangeCopilotToken({ urls: githubUrls(offline.url), fetch, signal }, github)),
    }
    const home = tempHome()
    assert.equal(await new CopilotModelCache(home).refresh(own), true)
    const before = readFileSync(new CopilotModelCache(home).path, 'utf8')
    await offline.close()
    const cache = new CopilotModelCache(home)
    assert.deepEqual(
      cache.current()?.models.map((m) => m.id),
      ['gpt-5.2-codex', 'gpt-4.1'],
    )
    await cache.expire()
    assert.equal(cache.stale(), true, 'expired: kept but stale')
    assert.equal(await cache.refresh(own), false, 'the fake is gone')
    assert.deepEqual(
      cache.current()?.models.map((m) => m.id),
      ['gpt-5.2-codex', 'gpt-4.1'],
    )
    assert.equal(JSON.parse(readFileSync(cache.path, 'utf8')).fetched_at, 0)
    assert.notEqual(before, '')
  })

  it('lists again when stale; a refused listing keeps the list as it was', async () => {
    const home = tempHome()
    const cache = new CopilotModelCache(home)
    const old = Date.now() - COPILOT_MODELS_TTL_MS - 1000
    write(
      cache,
      JSON.stringify({
        version: 1,
        fetched_at: old,
        models: [
          {
            id: 'retired',
            wire: 'chat_completions',
            name: null,
            contextWindow: null,
            maxOutputTokens: null,
            imageInput: null,
            toolCalls: null,
            efforts: [],
          },
        ],
      }),
    )
    assert.equal(cache.stale(), true)
    const refused = await cache.refresh({ ...credential, access: 'not-a-copilot-token' })
    assert.equal(refused, false)
    assert.deepEqual(
      cache.current()?.models.map((m) => m.id),
      ['retired'],
      'the refusal kept the list',
    )
    assert.equal(cache.current()?.fetchedAt, old)
    const calls = modelsCalls()
    assert.equal(await cache.refresh(credential), true)
    assert.equal(modelsCalls(), calls + 1)
    assert.deepEqual(
      cache.current()?.models.map((m) => m.id),
      ['gpt-5.2-codex', 'gpt-4.1'],
    )
    assert.equal(cache.stale(), false)
  })

  it('shares one listing between callers at the same time', async () => {
    const cache = new CopilotModelCache(tempHome())
    const calls = modelsCalls()
    const [a, b] = await Promise.all([cache.refresh(credential), cache.refresh(credential)])
    assert.deepEqual([a, b], [true, true])
    assert.equal(modelsCalls(), calls + 1)
  })

  it('passes over a file that is not JSON or has the wrong shape', () => {
    const cache = new CopilotModelCache(tempHome())
    for (const text of [
      '{not json',
      '[]',
      JSON.stringify({ version: 2, fetched_at: 1, models: [] }),
      JSON.stringify({ version: 1, fetched_at: 'yesterday', models: [] }),
      JSON.stringify({ version: 1, fetched_at: 1, models: [{ id: 'x', wire: 'messages' }] }),
    ]) {
      write(cache, text)
      assert.equal(cache.current(), null, text)
      assert.equal(cache.stale(), true, text)
      assert.equal(cache.wireOf('x'), null)
    }
  })
})

describe('the wire of a model no list names', () => {
  it('sends gpt-5 and later (not gpt-5-mini) to Responses, the others to Chat Completions', () => {
    assert.equal(wireByName('gpt-5'), 'responses')
    assert.equal(wireByName('gpt-5.2-codex'), 'responses')
    assert.equal(wireByName('gpt-6'), 'responses')
    assert.equal(wireByName('gpt-5-mini'), 'chat_completions')
    assert.equal(wireByName('gpt-4.1'), 'chat_completions')
    assert.equal(wireByName('claude-sonnet-4.5'), 'chat_completions')
    assert.equal(wireByName('o3-mini'), 'chat_completions')
  })
})
