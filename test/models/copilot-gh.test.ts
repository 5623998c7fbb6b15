// A copilot profile with no account borrows the signed-in GitHub CLI's token for each run:
// a stand-in `gh` (HEARTH_COPILOT_GH) prints a token, the steps and the model listing send
// it in direct mode, nothing stores it, and no log line or event carries it. Where it cannot
// be had (gh signed out, gh missing) or Copilot refuses it, the turn's error says so.
import assert from 'node:assert/strict'
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { FakeOpenAIUpstream } from '../fakes/openai-upstream.ts'
import { startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'
import { idle, message, putInput, waitSession } from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'
import { COPILOT_MODELS, copilotHome } from './copilot-helpers.ts'

const TOKEN = 'gho_borrowed_token_5678'

/** A stand-in `gh` whose answer is its directory's `mode` file: `token` or `signed-out`. */
function standInGh(): { program: string; mode: (m: 'token' | 'signed-out') => void; calls: () => string[] } {
  const dir = tempHome('hearth-gh-')
  mkdirSync(dir, { recursive: true })
  const program = join(dir, 'gh')
  writeFileSync(
    program,
    `#!/bin/sh
echo "$*" >> "${dir}/calls"
case "$(cat "${dir}/mode")" in
  token) echo ${TOKEN} ;;
  *) echo "You are not logged into any GitHub hosts. To log in, run: gh auth login" >&2; exit 1 ;;
esac
`,
  )
  chmodSync(program, 0o755)
  const mode = (m: string) => writeFileSync(join(dir, 'mode'), m)
  mode('token')
  const calls = () =>
    existsSync(join(dir, 'calls')) ? readFileSync(join(dir, 'calls'), 'utf8').trim().split('\n') : []
  return { program, mode, calls }
}

/** Every file under the home as text, to look for the token in. */
function allText(dir: string): string {
  let out = ''
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out += readFileSync(join(entry.parentPath, entry.name), 'latin1')
  }
  return out
}

async function failedTurn(d: TestDaemon): Promise<any> {
  const sid = await createSession(d, { kind: 'new', workspace: d.home, provider_profile: 'cp' })
  await putInput(d, sid, message('hello'))
  const done = await waitSession(d, sid, idle)
  return done.history.items.find((e: any) => e.kind === 'error')?.content.problem
}

describe('a copilot profile on the signed-in GitHub CLI', () => {
  let api: FakeOpenAIUpstream
  let d: TestDaemon
  let gh: ReturnType<typeof standInGh>

  before(async () => {
    api = await FakeOpenAIUpstream.start()
    api.models = COPILOT_MODELS
    gh = standInGh()
    d = await startDaemon({
      home: copilotHome({ account: null }),
      env: { HEARTH_COPILOT_API_URL: `${api.url}/v1`, HEARTH_COPILOT_GH: gh.program },
    })
  })
  after(async () => {
    await d.stop()
    await api.close()
  })

  it('runs the turn on the token gh prints, in direct mode, and stores it nowhere', async () => {
    const sid = await createSession(d, { kind: 'new', workspace: d.home, provider_profile: 'cp' })
    await putInput(d, sid, message('hello'))
    const done = await waitSession(d, sid, idle)
    assert.equal(done.latest_answer.outcome, 'completed', JSON.stringify(done.history.items.at(-1)))
    const step = api.requests.find((r) => r.method === 'POST')
    assert.ok(step)
    assert.equal(step.path, '/v1/chat/completions', 'gpt-4.1 is a Chat Completions model')
    assert.equal(step.headers.authorization, `Bearer ${TOKEN}`)
    assert.match(String(step.headers['user-agent']), /^hearth\//)
    assert.equal(step.headers['openai-intent'], 'conversation-edits')
    assert.equal(step.headers['editor-version'], undefined, 'no editor headers in direct mode')
    assert.ok(gh.calls().includes('auth token'))
    const creds = join(d.home, 'creds.json')
    assert.ok(!existsSync(creds) || !readFileSync(creds, 'utf8').includes('copilot'), 'never stored')
    const events = await d.request({ path: `/sessions/${sid}/history?limit=200` })
    assert.doesNotMatch(events.text(), new RegExp(TOKEN))
  })

  it('lists the models with the borrowed token', async () => {
    const r = await d.request({ path: '/models?provider_profile=cp' })
    assert.deepEqual(
      r.json().items.map((m: any) => m.id),
      ['gpt-4.1', 'gpt-5-mini', 'gpt-5.2-codex'],
    )
    const listing = api.requests.find((x) => x.path === '/v1/models')
    assert.equal(listing?.headers.authorization, `Bearer ${TOKEN}`)
  })

  it('says Copilot refused the token when the API answers 401', async () => {
    api.failTimes(1, 401, { message: 'bad credentials' })
    const problem = await failedTurn(d)
    assert.equal(problem.code, 'upstream_unauthorized')
    assert.match(problem.detail, /^HTTP 401\b/)
    assert.match(
      problem.detail,
      /refused the GitHub token \(a GitHub CLI token is refused when .*\); sign in with a code: run \/login$/,
    )
    assert.doesNotMatch(problem.detail, new RegExp(TOKEN))
  })

  it('says gh is signed out, and what to run', async () => {
    gh.mode('signed-out')
    const problem = await failedTurn(d)
    gh.mode('token')
    assert.equal(problem.code, 'signed_out')
    assert.equal(
      problem.detail,
      'no GitHub Copilot account is signed in and the GitHub CLI is signed out too; run gh auth login, or /login',
    )
  })

  it('never writes the token to the home (logs, caches, database)', () => {
    assert.doesNotMatch(allText(d.home), new RegExp(TOKEN))
  })

  it('says gh is missing when it is not installed', async () => {
    const bare = await startDaemon({
      home: copilotHome({ account: null }),
      env: { HEARTH_COPILOT_API_URL: `${api.url}/v1` },
    })
    try {
      const problem = await failedTurn(bare)
      assert.equal(problem.code, 'signed_out')
      assert.equal(
        problem.detail,
        'no GitHub Copilot account is signed in and the GitHub CLI (gh) to borrow a token from is not installed or not on the PATH; run /login',
      )
    } finally {
      await bare.stop()
    }
  })
})
