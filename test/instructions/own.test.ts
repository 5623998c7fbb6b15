// hearth's own instructions and the environment block through the real daemon: the facts
// follow the session's configuration (approval policy, network, allowed roots) and its
// workspace's repository (branch, unstaged changes), read once per run so every step of a run
// sends the same system text; the `instructions` settings extend, replace or drop parts; the
// context summary and its instructions section show what the next request sends.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, beforeEach, describe, it } from 'node:test'
import { OWN_INSTRUCTIONS } from '../../src/instructions/own.ts'
import { FakeOpenAIUpstream } from '../fakes/openai-upstream.ts'
import { answer, callTools } from '../fakes/tool-script.ts'
import { startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'
import { getSession, idle, message, putInput, waitSession } from '../inputs/helpers.ts'
import { change, patchGroup, readGroup } from '../settings/helpers.ts'
import { configure, createSession } from '../streams/sse-client.ts'

const ENVIRONMENT = /<environment>\n[\s\S]*\n<\/environment>$/

function git(cwd: string, ...args: string[]): string {
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' }
  const who = ['-c', 'user.name=Ann', '-c', 'user.email=ann@example.test', '-c', 'commit.gpgsign=false']
  return execFileSync('git', [...who, ...args], { cwd, env, encoding: 'utf8' })
}

describe("hearth's instructions", () => {
  let d: TestDaemon
  let upstream: FakeOpenAIUpstream
  let root: string

  before(async () => {
    upstream = await FakeOpenAIUpstream.start()
    const home = tempHome()
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        providers: {
          default_profile: 'fake',
          profiles: { fake: { endpoint: `${upstream.url}/v1`, protocol: 'responses', model: 'fake-model' } },
        },
      }),
    )
    d = await startDaemon({ home })
    root = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-own-')))
  })
  after(async () => {
    await d.stop()
    await upstream.close()
    rmSync(root, { recursive: true, force: true })
  })
  beforeEach(() => {
    upstream.reset()
  })

  async function newSession(name: string): Promise<{ sid: string; workspace: string }> {
    const workspace = join(root, name)
    mkdirSync(workspace, { recursive: true })
    return { sid: await createSession(d, { kind: 'new', workspace }), workspace }
  }

  /** Sends one message; the system text of each request the run made. */
  async function run(sid: string, text = 'hello'): Promise<string[]> {
    const before = upstream.requests.length
    const earlier = JSON.stringify((await getSession(d, sid)).latest_answer)
    const r = await putInput(d, sid, message(text))
    assert.equal(r.status, 202, r.text())
    const s = await waitSession(d, sid, (x) => idle(x) && JSON.stringify(x.latest_answer) !== earlier)
    assert.equal(s.latest_answer.outcome, 'completed', JSON.stringify(s.history?.items?.at(-1)))
    return upstream.requests.slice(before).map((q) => q.body.instructions)
  }
  const lastSystem = async (sid: string) => (await run(sid)).at(-1) as string
  const line = (system: string, name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(system)?.[1]

  it("starts with hearth's own text and ends with the environment block", async () => {
    const { sid, workspace } = await newSession('plain')
    const system = await lastSystem(sid)
    assert.ok(system.startsWith(OWN_INSTRUCTIONS), 'the stable text comes first')
    assert.match(system, ENVIRONMENT)
    assert.equal(line(system, 'Workspace'), workspace)
    assert.equal(line(system, 'Git'), 'the workspace is not in a git repository.')
    assert.match(line(system, 'Operating system') ?? '', /^\S+ \S+ \(\S+\); commands run with bash$/)
    const today = (t: Date) =>
      `${t.getFullYear()}-${String(t.getMonth() + 1).padStart(2, '0')}-${String(t.getDate()).padStart(2, '0')}`
    assert.ok([today(new Date()), today(new Date(Date.now() - 60_000))].includes(line(system, 'Date') ?? ''))
  })

  it('says what the approval policy, the sandbox and the network allow, as the session is configured', async () => {
    const { sid } = await newSession('policy')
    const sandbox = (await d.request({ path: '/server' })).json().sandbox
    const ask = await lastSystem(sid)
    assert.match(
      line(ask, 'Approval policy') ?? '',
      /^ask: reads run at once; each write, edit and command waits/,
    )
    const commands = line(ask, 'Commands') ?? ''
    if (sandbox.available) assert.match(commands, /^run in a sandbox: .* the network is off\.$/)
    else assert.match(commands, /^run without a sandbox/)

    await configure(d, sid, { approval_policy: 'read-only' })
    const readOnly = await lastSystem(sid)
    assert.match(line(readOnly, 'Approval policy') ?? '', /^read-only: you can read and search/)
    assert.equal(line(readOnly, 'Commands'), undefined, 'no commands under read-only')

    await configure(d, sid, { approval_policy: 'auto' })
    const extra = join(root, 'shared-data')
    mkdirSync(extra, { recursive: true })
    await change(d, 'tools', { network: true, allowed_roots: [extra] })
    try {
      const auto = await lastSystem(sid)
      assert.equal(line(auto, 'Approval policy'), 'auto: every call runs without asking the person.')
      assert.equal(line(auto, 'Other directories you may use'), extra)
      if (sandbox.available) assert.match(line(auto, 'Commands') ?? '', /the network is on\.$/)
    } finally {
      await change(d, 'tools', { network: null, allowed_roots: null })
    }
  })

  it('reads the git state once per run: every step of a run sends the same text', async () => {
    const { sid, workspace } = await newSession('repo')
    git(workspace, 'init', '-q', '-b', 'trunk')
    writeFileSync(join(workspace, 'a.txt'), 'one\n')
    git(workspace, 'add', 'a.txt')
    git(workspace, 'commit', '-q', '-m', 'first')
    await configure(d, sid, { approval_policy: 'auto' })
    // The run's first step writes a tracked file; its second step still sends the block its
    // start read, so the provider's cache of the first request's prefix holds.
    upstream.enqueue(
      callTools({ name: 'write', arguments: { path: 'a.txt', content: 'two, longer\n' } }),
      answer('done'),
    )
    const steps = await run(sid, 'change a.txt')
    assert.equal(steps.length, 2)
    assert.equal(steps[0], steps[1])
    assert.equal(line(steps[0], 'Git'), 'on branch trunk; no unstaged changes to tracked files.')
    assert.equal(line(await lastSystem(sid), 'Git'), 'on branch trunk; tracked files have unstaged changes.')
    git(workspace, 'commit', '-q', '-am', 'second')
    assert.equal(line(await lastSystem(sid), 'Git'), 'on branch trunk; no unstaged changes to tracked files.')
    const head = git(workspace, 'rev-parse', 'HEAD').trim()
    git(workspace, 'checkout', '-q', '--detach')
    rmSync(join(workspace, 'a.txt'))
    assert.equal(
      line(await lastSystem(sid), 'Git'),
      `detached at ${head.slice(0, 12)}; tracked files have unstaged changes.`,
    )
    // A directory below the repository's root sees the same repository.
    const below = join(workspace, 'sub')
    mkdirSync(below)
    const sub = await createSession(d, { kind: 'new', workspace: below })
    assert.match(line(await lastSystem(sub), 'Git') ?? '', /^detached at /)
  })

  it('settings extend, replace or drop parts of the system text', async () => {
    const { sid } = await newSession('settings')
    writeFileSync(join(root, 'settings', 'AGENTS.md'), 'file rule\n')
    assert.deepEqual((await readGroup(d, 'instructions')).settings, {
      replace: null,
      append: null,
      environment: true,
    })
    try {
      await change(d, 'instructions', { append: 'Answer in French.' })
      const extended = await lastSystem(sid)
      assert.ok(extended.startsWith(`${OWN_INSTRUCTIONS}\n\nAnswer in French.\n\nInstruction files follow`))

      await change(d, 'instructions', { replace: 'You review code only.', append: null })
      const replaced = await lastSystem(sid)
      assert.ok(replaced.startsWith('You review code only.\n\nInstruction files follow'))
      assert.doesNotMatch(replaced, /# Tools/)
      assert.match(replaced, ENVIRONMENT)

      await change(d, 'instructions', { replace: '', environment: false })
      const filesOnly = await lastSystem(sid)
      assert.ok(filesOnly.startsWith('Instruction files follow'))
      assert.ok(filesOnly.endsWith('</instructions>'))
    } finally {
      await change(d, 'instructions', { replace: null, append: null, environment: null })
    }
    assert.ok((await lastSystem(sid)).startsWith(OWN_INSTRUCTIONS))
    const { etag } = await readGroup(d, 'instructions')
    const tooLong = await patchGroup(d, 'instructions', { append: 'x'.repeat(32_769) }, etag)
    assert.equal(tooLong.status, 400, tooLong.text())
    const wrong = await patchGroup(d, 'instructions', { environment: 'yes' }, etag)
    assert.equal(wrong.status, 400, wrong.text())
  })

  it('the context summary and its instructions section show the system text the next request sends', async () => {
    const { sid } = await newSession('context')
    writeFileSync(join(root, 'context', 'AGENTS.md'), 'context rule\n')
    const summary = (await d.request({ path: `/sessions/${sid}/context` })).json()
    const section = summary.sections.find((s: any) => s.id === 'instructions')
    assert.equal(section.system_parts.own, OWN_INSTRUCTIONS.length)
    assert.ok(section.system_parts.files > 0)
    assert.ok(section.system_parts.environment > 0)
    const page = await d.request({
      path: `/sessions/${sid}/context?view=section&snapshot_id=${summary.snapshot_id}&section_id=instructions&page=0`,
    })
    assert.equal(page.status, 200, page.text())
    const text = page.json().text
    assert.equal(text.length, section.chars)
    assert.ok(text.startsWith(OWN_INSTRUCTIONS))
    assert.match(text, /context rule/)
    assert.match(text, ENVIRONMENT)
    assert.equal(await lastSystem(sid), text)
  })
})
