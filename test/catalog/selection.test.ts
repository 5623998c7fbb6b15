// Selection made real: a session's entries turn skills, MCP servers and extensions off for
// its turns (asserted on what the fake upstream receives and on the kernel's composition),
// `selection.effective` and `composition.dependencies` are shown, a selection or an MCP
// settings change raises needs_reload, and catalog_revision refuses a change made from a
// catalog page that has changed since (409 catalog_changed, nothing written).
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, beforeEach, describe, it } from 'node:test'
import { answer, callTools, toolResultsOf } from '../fakes/tool-script.ts'
import { ROOT, type TestDaemon } from '../helpers/daemon.ts'
import { idle, message, putInput, waitSession } from '../inputs/helpers.ts'
import { change } from '../settings/helpers.ts'
import { type AgentSetup, getSession, newSession, runMessage, startAgent } from '../tools/agent-helpers.ts'
import { writeSkill } from './helpers.ts'

const STDIO_SERVER = join(ROOT, 'test/fakes/mcp/stdio-server.ts')
const RUN_MS = 40_000
const server = () => ({ command: process.execPath, args: [STDIO_SERVER], startup_timeout_ms: 30_000 })

async function configure(d: TestDaemon, sid: string, body: unknown) {
  const etag = (await d.request({ path: `/sessions/${sid}?view=configuration` })).json().etag
  return d.request({
    method: 'PATCH',
    path: `/sessions/${sid}?view=configuration`,
    headers: { 'content-type': 'application/merge-patch+json', 'if-match': etag },
    body: JSON.stringify(body),
  })
}

async function patchOk(d: TestDaemon, sid: string, body: unknown) {
  const r = await configure(d, sid, body)
  assert.equal(r.status, 200, r.text())
}

const offeredNames = (body: any): string[] => (body.tools ?? []).map((t: any) => t.name ?? t.function?.name)

describe('selection', () => {
  let s: AgentSetup
  const skills = () => join(s.workspace, '.hearth', 'skills')
  before(async () => {
    s = await startAgent({ tools: { approval_policy: 'auto' } })
    writeSkill(skills(), 'deploy', 'Deploy the service', 'DEPLOY BODY\n')
    writeSkill(skills(), 'lint', 'Lint the code', 'LINT BODY\n')
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })
  beforeEach(() => s.upstream.reset())

  it('a skill turned off is not listed to the model, the skill tool refuses it, effective shows it', async () => {
    const sid = await newSession(s)
    const created = await getSession(s.d, sid)
    await patchOk(s.d, sid, { selection: { skills: { deploy: false } } })
    const read = await getSession(s.d, sid)
    assert.deepEqual(read.selection.overrides.skills, { deploy: false })
    assert.equal(read.selection.effective.skills.deploy, false)
    assert.equal(read.selection.effective.skills.lint, true)
    assert.equal(read.composition.desired_revision, created.composition.desired_revision + 1)
    assert.equal(read.composition.needs_reload, true)
    s.upstream.enqueue(
      callTools(
        { name: 'skill', arguments: { name: 'deploy' }, id: 'c_deploy' },
        { name: 'skill', arguments: { name: 'lint' }, id: 'c_lint' },
      ),
      answer('done'),
    )
    await runMessage(s, sid, 'ship it', RUN_MS)
    const system: string = s.upstream.requests[0].body.instructions
    assert.match(system, /- lint: Lint the code/)
    assert.doesNotMatch(system, /deploy/i)
    const results = toolResultsOf(s.upstream.requests[1].body)
    const byId = Object.fromEntries(results.map((r) => [r.call_id, r.output]))
    assert.match(byId.c_deploy, /deploy: this skill is turned off for this session/)
    assert.doesNotMatch(byId.c_deploy, /DEPLOY BODY/)
    assert.match(byId.c_lint, /LINT BODY/)
    // A null removes the entry: the skill is listed again.
    await patchOk(s.d, sid, { selection: { skills: { deploy: null } } })
    s.upstream.enqueue(answer('ok'))
    await runMessage(s, sid, 'again', RUN_MS)
    assert.match(s.upstream.requests.at(-1)?.body.instructions, /- deploy: Deploy the service/)
  })

  it('an MCP server turned off is not loaded by the kernel; its tools are not offered', async () => {
    await change(s.d, 'mcp', { servers: { keep: server(), drop: server() } })
    try {
      const sid = await newSession(s)
      await patchOk(s.d, sid, { selection: { mcp: { drop: false } } })
      const read = await getSession(s.d, sid)
      assert.deepEqual(read.selection.effective.mcp, { keep: true, drop: false })
      assert.ok(read.composition.dependencies['mcp:keep'])
      assert.equal(read.composition.dependencies['mcp:drop'], undefined)
      s.upstream.enqueue(answer('ok'))
      const done = await runMessage(s, sid, 'hello', RUN_MS)
      const offered = offeredNames(s.upstream.requests[0].body)
      assert.ok(offered.includes('mcp__keep__echo'), offered.join(','))
      assert.ok(!offered.some((n) => n.startsWith('mcp__drop__')), offered.join(','))
      assert.ok(done.composition.availability['mcp:keep'])
      assert.equal(done.composition.availability['mcp:drop'], undefined)
    } finally {
      await change(s.d, 'mcp', { servers: { keep: null, drop: null } })
    }
  })

  it('an MCP settings change marks the sessions that use the server, not those that turn it off', async () => {
    await change(s.d, 'mcp', { servers: { tool: { ...server(), enabled: false } } })
    const user = await newSession(s)
    const optOut = await newSession(s)
    const optIn = await newSession(s)
    await patchOk(s.d, optOut, { selection: { mcp: { tool: false } } })
    await patchOk(s.d, optIn, { selection: { mcp: { tool: true } } })
    const rev = async (sid: string) => (await getSession(s.d, sid)).composition.desired_revision
    const before = [await rev(user), await rev(optOut), await rev(optIn)]
    // Changed while disabled: only the session that turns it on uses it.
    await change(s.d, 'mcp', { servers: { tool: { tool_timeout_ms: 5000 } } })
    assert.deepEqual(
      [await rev(user), await rev(optOut), await rev(optIn)],
      [before[0], before[1], before[2] + 1],
    )
    // Enabled: every session but the one that turns it off.
    await change(s.d, 'mcp', { servers: { tool: { enabled: true } } })
    assert.deepEqual(
      [await rev(user), await rev(optOut), await rev(optIn)],
      [before[0] + 1, before[1], before[2] + 2],
    )
    await change(s.d, 'mcp', { servers: { tool: null } })
  })

  it('an extension turned off refuses the session’s turns before any request; dependencies say why', async () => {
    const sid = await newSession(s)
    let read = await getSession(s.d, sid)
    assert.deepEqual(read.composition.dependencies['extension:openai-compatible'], {
      kind: 'extension',
      name: 'openai-compatible',
      reason: 'provider profile fake',
      state: 'ok',
    })
    assert.equal(read.composition.dependencies['extension:models'].reason, 'required by openai-compatible')
    await patchOk(s.d, sid, { selection: { extensions: { models: false } } })
    read = await getSession(s.d, sid)
    assert.equal(read.composition.dependencies['extension:models'].state, 'off')
    assert.equal(read.selection.effective.extensions.models, false)
    assert.equal(read.selection.effective.extensions.claude, true)
    await putInput(s.d, sid, message('hello'))
    const failed = await waitSession(s.d, sid, idle)
    const error = failed.history.items.find((e: any) => e.kind === 'error')
    assert.equal(error.content.problem.code, 'extension_not_selected', JSON.stringify(error))
    assert.match(error.content.problem.detail, /turns off models/)
    assert.equal(s.upstream.requests.length, 0)
  })

  it('catalog_revision: a change from a page that has changed since is 409 catalog_changed and writes nothing', async () => {
    const sid = await newSession(s)
    const page = async () => (await s.d.request({ path: `/sessions/${sid}/catalog?kind=skills` })).json()
    const first = await page()
    await patchOk(s.d, sid, {
      selection: { skills: { lint: false } },
      catalog_revision: first.catalog_revision,
    })
    // A file of another section does not change this page's revision.
    writeFileSync(join(s.workspace, 'AGENTS.md'), 'Use tabs.\n')
    await patchOk(s.d, sid, {
      selection: { skills: { lint: true } },
      catalog_revision: first.catalog_revision,
    })
    const before = (await s.d.request({ path: `/sessions/${sid}?view=configuration` })).json()
    writeSkill(skills(), 'lint', 'Lint the code, strictly', 'LINT BODY 2\n')
    const r = await configure(s.d, sid, {
      selection: { skills: { lint: false } },
      catalog_revision: first.catalog_revision,
    })
    assert.equal(r.status, 409)
    assert.equal(r.headers['content-type'], 'application/problem+json')
    assert.equal(r.json().code, 'catalog_changed')
    const after = (await s.d.request({ path: `/sessions/${sid}?view=configuration` })).json()
    assert.deepEqual(after, before)
    for (const bad of ['', 'nonsense', 'plugins:abc', 'skills:'])
      assert.equal((await configure(s.d, sid, { catalog_revision: bad })).status, 409, bad)
    const again = await page()
    await patchOk(s.d, sid, {
      selection: { skills: { lint: false } },
      catalog_revision: again.catalog_revision,
    })
    assert.equal((await getSession(s.d, sid)).selection.effective.skills.lint, false)
  })
})
