// Copilot's model list against the fake GitHub over a real socket, and the wire each item
// is served on.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { exchangeCopilotToken } from '../../../src/providers/copilot/account.ts'
import { EDITOR_HEADERS, githubUrls } from '../../../src/providers/copilot/constants.ts'
import { listModels, wireOf } from '../../../src/providers/copilot/models.ts'
import { FakeGitHub } from '../../fakes/github.ts'

let gh: FakeGitHub
before(async () => {
  gh = await FakeGitHub.start()
})
after(() => gh.close())

const signal = new AbortController().signal

describe('copilot models', () => {
  it('lists the account’s models with their wires, sending the Copilot token', async () => {
    const github = gh.issue({ id: 1, login: 'octocat', copilot: true })
    const token = await exchangeCopilotToken({ urls: githubUrls(gh.url), fetch, signal }, github)
    const result = await listModels({
      api: token.api,
      token: token.access,
      headers: EDITOR_HEADERS,
      fetch,
      signal,
    })
    assert.ok(result.ok)
    assert.deepEqual(
      result.models.map((m) => [m.id, m.wire, m.contextWindow, m.maxOutputTokens, m.imageInput, m.efforts]),
      [
        ['gpt-5.2-codex', 'responses', 400000, 128000, null, ['low', 'medium', 'high']],
        ['gpt-4.1', 'chat_completions', 128000, 16384, true, []],
      ],
    )
    assert.equal(gh.requests.at(-1)!.headers.authorization, `Bearer ${token.access}`)
  })

  it('answers the status of a refusal without the token', async () => {
    const result = await listModels({ api: gh.copilotUrl, token: 'stale', headers: {}, fetch, signal })
    assert.deepEqual(result, { ok: false, status: 401, message: 'Copilot /models answered HTTP 401' })
  })

  it('picks Responses first, then Chat Completions; leaves out Messages-only and disabled models', () => {
    assert.equal(wireOf({ supported_endpoints: ['/chat/completions', '/responses'] }), 'responses')
    assert.equal(wireOf({ supported_endpoints: ['/chat/completions'] }), 'chat_completions')
    assert.equal(wireOf({}), 'chat_completions')
    assert.equal(wireOf({ supported_endpoints: ['/v1/messages'] }), null)
    assert.equal(wireOf({ supported_endpoints: ['/responses'], policy: { state: 'disabled' } }), null)
  })
})
