// hearth's own instructions on every wire, through the real daemon to each fake upstream:
// the system text starts with them, the AGENTS.md files follow, the environment block ends
// it, and each wire carries it where its vendor takes system text (Responses `instructions`,
// a first Chat Completions system message, Messages `system` after the vendor's required
// blocks on the Claude subscription path, Gemini `systemInstruction`, the Code Assist
// envelope's `request.systemInstruction`).
import assert from 'node:assert/strict'
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { BILLING_TEXT, IDENTITY_TEXT } from '../../src/providers/claude/constants.ts'
import { freePort } from '../auth/oidc-peer.ts'
import { FakeAntigravityBackend } from '../fakes/antigravity-backend.ts'
import { FakeChatgptBackend } from '../fakes/chatgpt-backend.ts'
import { FakeGeminiUpstream } from '../fakes/gemini-upstream.ts'
import { FakeGoogleToken } from '../fakes/google-token.ts'
import { FakeOpenAIUpstream } from '../fakes/openai-upstream.ts'
import { signInChatgpt } from '../helpers/chatgpt-signin.ts'
import { startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'
import { idle, message, putInput, waitSession } from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'

const OWN = /^You are a coding agent running in hearth/

describe('system text on every wire', () => {
  let openai: FakeOpenAIUpstream
  let chatgpt: FakeChatgptBackend
  let gemini: FakeGeminiUpstream
  let tokens: FakeGoogleToken
  let antigravity: FakeAntigravityBackend
  let d: TestDaemon
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-wires-')))

  before(async () => {
    ;[openai, chatgpt, gemini, tokens, antigravity] = await Promise.all([
      FakeOpenAIUpstream.start(),
      FakeChatgptBackend.start(),
      FakeGeminiUpstream.start(),
      FakeGoogleToken.start(),
      FakeAntigravityBackend.start(),
    ])
    writeFileSync(join(workspace, 'AGENTS.md'), 'project rule: run the tests\n')
    const home = tempHome()
    const keyFile = join(home, 'key.json')
    writeFileSync(keyFile, JSON.stringify(tokens.serviceAccount()))
    const messages = { protocol: 'chat_completions', model: 'claude-sonnet-4-5-20250929' }
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        providers: {
          default_profile: 'responses',
          profiles: {
            responses: { endpoint: `${openai.url}/v1`, protocol: 'responses', model: 'fake-model' },
            chat: { endpoint: `${openai.url}/v1`, protocol: 'chat_completions', model: 'fake-model' },
            chatgpt: { extension: 'chatgpt', endpoint: chatgpt.backendUrl, model: 'gpt-5.1-codex' },
            claude: { extension: 'claude', ...messages },
            bedrock: { extension: 'bedrock', model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' },
            vertex: {
              extension: 'vertex',
              model: 'gemini-3-flash-preview',
              project: 'p',
              location: 'global',
            },
            antigravity: {
              extension: 'antigravity',
              protocol: 'chat_completions',
              model: 'gemini-3-pro-preview',
            },
          },
          sign_in: { chatgpt: { issuer: chatgpt.url, callback_port: await freePort() } },
        },
      }),
    )
    const ada = antigravity.issue({ email: 'ada@example.com', project: 'proj-ada' })
    const expires = Date.now() + 3_600_000
    writeFileSync(
      join(home, 'creds.json'),
      JSON.stringify({
        accounts: {
          claude: { type: 'oauth', access: 'sk-ant-oat01-hand', expires },
          antigravity: {
            type: 'oauth',
            access: ada.access_token,
            refresh: ada.refresh_token,
            expires,
            projectId: 'proj-ada',
            email: 'ada@example.com',
          },
        },
      }),
      { mode: 0o600 },
    )
    d = await startDaemon({
      home,
      env: {
        HEARTH_CLAUDE_BASE_URL: openai.url,
        HEARTH_BEDROCK_BASE_URL: openai.url,
        AWS_ACCESS_KEY_ID: 'AKIDWIRES',
        AWS_SECRET_ACCESS_KEY: 'wires-secret',
        AWS_REGION: 'us-east-1',
        AWS_PROFILE: '',
        AWS_BEARER_TOKEN_BEDROCK: '',
        HEARTH_VERTEX_BASE_URL: gemini.url,
        GOOGLE_APPLICATION_CREDENTIALS: keyFile,
        HEARTH_ANTIGRAVITY_BASE_URL: antigravity.url,
        HEARTH_ANTIGRAVITY_TOKEN_URL: antigravity.tokenUrl,
        HEARTH_ANTIGRAVITY_VERSION: '7.7.7',
      },
    })
    await signInChatgpt(d, chatgpt, { accountId: 'ws', userId: 'u', email: 'u@example.com', plan: 'plus' })
  })
  after(async () => {
    await d?.stop()
    await Promise.all([openai, chatgpt, gemini, tokens, antigravity].map((f) => f?.close()))
  })

  /** One turn of a new session on `profile`; the body of the request its upstream received. */
  async function turnOn(profile: string, requests: () => { body: any }[]): Promise<any> {
    const sid = await createSession(d, { kind: 'new', workspace, provider_profile: profile })
    const before = requests().length
    await putInput(d, sid, message('hello'))
    const s = await waitSession(d, sid, (x) => idle(x) && x.latest_answer !== null)
    assert.equal(s.latest_answer.outcome, 'completed', JSON.stringify(s.history?.items?.at(-1)))
    assert.ok(requests().length > before, `${profile}: the upstream got no request`)
    return requests().at(-1)?.body
  }

  /** The whole system text, in the order it was sent: hearth's, the files, the environment. */
  function assertComposed(system: string, wire: string): void {
    assert.match(system, OWN, wire)
    const own = system.indexOf('# Tools')
    const files = system.indexOf('project rule: run the tests')
    const env = system.indexOf('<environment>')
    assert.ok(
      own > 0 && own < files && files < env,
      `${wire}: hearth's text, then the files, then the environment`,
    )
    assert.ok(system.endsWith('</environment>'), `${wire}: the environment block ends the system text`)
    assert.match(system, new RegExp(`Workspace: ${workspace}\\n`), wire)
  }

  it('openai-compatible Responses: `instructions`', async () => {
    const body = await turnOn('responses', () => openai.requests)
    assertComposed(body.instructions, 'responses')
    assert.ok(!body.input.some((m: any) => m.role === 'system' || m.role === 'developer'))
  })

  it('openai-compatible Chat Completions: one first system message', async () => {
    const body = await turnOn('chat', () => openai.requests)
    assert.equal(body.messages[0].role, 'system')
    assertComposed(body.messages[0].content, 'chat_completions')
    assert.equal(body.messages.filter((m: any) => m.role === 'system').length, 1)
  })

  it('chatgpt: `instructions`', async () => {
    const body = await turnOn('chatgpt', () => chatgpt.requests)
    assertComposed(body.instructions, 'chatgpt')
  })

  it('claude: the billing and identity blocks first, then hearth in a block of its own', async () => {
    const body = await turnOn('claude', () => openai.requests.filter((r) => r.path === '/v1/messages'))
    assert.deepEqual(
      body.system.slice(0, 2).map((b: any) => b.text),
      [BILLING_TEXT, IDENTITY_TEXT],
    )
    assert.equal(body.system.length, 3)
    assertComposed(body.system[2].text, 'claude')
  })

  it('bedrock: Messages `system`', async () => {
    const body = await turnOn('bedrock', () =>
      openai.requests.filter((r) => r.path.startsWith('/anthropic/')),
    )
    assert.equal(body.system.length, 1)
    assertComposed(body.system[0].text, 'bedrock')
  })

  it('vertex: `systemInstruction`', async () => {
    const body = await turnOn('vertex', () => gemini.requests)
    assert.equal(body.systemInstruction.parts.length, 1)
    assertComposed(body.systemInstruction.parts[0].text, 'vertex')
  })

  it('antigravity: `systemInstruction` inside the Code Assist envelope', async () => {
    const body = await turnOn('antigravity', () => antigravity.requests.filter((r) => r.body?.request))
    assertComposed(body.request.systemInstruction.parts[0].text, 'antigravity')
  })
})
