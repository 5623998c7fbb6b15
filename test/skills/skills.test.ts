// Skills: SKILL.md folders in the workspace's `.hearth/skills/` and the home's `skills/`.
// The model's request lists their names and descriptions in the system text; a `skill`
// call returns a skill's body; a workspace skill wins over the home's of the same name; a
// folder whose front matter is bad is skipped with its reason; a skill folder that is a
// symlink leading out of the workspace is neither listed nor read.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, beforeEach, describe, it } from 'node:test'
import { Skills } from '../../src/skills/skills.ts'
import { answer, callTools, toolResultsOf } from '../fakes/tool-script.ts'
import { type AgentSetup, newSession, runMessage, startAgent } from '../tools/agent-helpers.ts'

function skill(root: string, folder: string, frontMatter: string, body: string): void {
  mkdirSync(join(root, folder), { recursive: true })
  writeFileSync(join(root, folder, 'SKILL.md'), `---\n${frontMatter}\n---\n${body}`)
}

describe('skills', () => {
  let s: AgentSetup
  let outside: string
  before(async () => {
    s = await startAgent({ tools: { approval_policy: 'auto' } })
    const ws = join(s.workspace, '.hearth', 'skills')
    const home = join(s.home, 'skills')
    skill(
      ws,
      'release',
      'name: release\ndescription: Cut a release of this project',
      'RELEASE BODY: tag, then publish\n',
    )
    skill(ws, 'shared', 'name: shared\ndescription: the workspace version', 'WORKSPACE SHARED BODY\n')
    skill(ws, 'broken', 'name: broken\ndescription: [unclosed', 'never seen\n')
    skill(ws, 'nameless', 'description: has no name', 'never seen\n')
    skill(home, 'shared', 'name: shared\ndescription: the home version', 'HOME SHARED BODY\n')
    skill(
      home,
      'pdf',
      'name: pdf\ndescription: |\n  Fill in PDF forms.\n  Use for any .pdf',
      'HOME PDF BODY\n',
    )
    outside = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-skill-out-')))
    skill(outside, 'secret', 'name: secret\ndescription: lives outside the workspace', 'SECRET BODY\n')
    symlinkSync(join(outside, 'secret'), join(ws, 'secret'))
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
    rmSync(outside, { recursive: true, force: true })
  })
  beforeEach(() => s.upstream.reset())

  it("the request lists the skills' names and descriptions and offers the skill tool", async () => {
    const sid = await newSession(s)
    s.upstream.enqueue(answer('ok'))
    await runMessage(s, sid, 'hello')
    const body = s.upstream.requests[0].body
    const system: string = body.instructions
    assert.match(system, /<skills>/)
    assert.match(system, /- release: Cut a release of this project/)
    assert.match(system, /- shared: the workspace version/)
    assert.doesNotMatch(system, /the home version/)
    assert.match(system, /- pdf: Fill in PDF forms\. Use for any \.pdf/)
    assert.doesNotMatch(system, /broken|nameless|secret|BODY/)
    const tools = body.tools.map((t: any) => t.name ?? t.function?.name)
    assert.ok(tools.includes('skill'))
  })

  it('a skill call returns the body; the workspace one wins; outside and bad ones are refused', async () => {
    const sid = await newSession(s)
    s.upstream.enqueue(
      callTools(
        { name: 'skill', arguments: { name: 'release' }, id: 'c_release' },
        { name: 'skill', arguments: { name: 'shared' }, id: 'c_shared' },
        { name: 'skill', arguments: { name: 'pdf' }, id: 'c_pdf' },
        { name: 'skill', arguments: { name: 'secret' }, id: 'c_secret' },
        { name: 'skill', arguments: { name: 'broken' }, id: 'c_broken' },
        { name: 'skill', arguments: { name: 'nope' }, id: 'c_nope' },
      ),
      answer('done'),
    )
    await runMessage(s, sid, 'release it')
    const results = new Map(toolResultsOf(s.upstream.requests[1].body).map((r) => [r.call_id, r.output]))
    assert.match(results.get('c_release')!, /RELEASE BODY: tag, then publish/)
    assert.doesNotMatch(results.get('c_release')!, /description:/, 'the front matter is not the body')
    assert.match(results.get('c_shared')!, /WORKSPACE SHARED BODY/)
    assert.match(results.get('c_pdf')!, /HOME PDF BODY/)
    assert.doesNotMatch(results.get('c_secret')!, /SECRET BODY/)
    assert.match(results.get('c_secret')!, /outside/)
    assert.match(results.get('c_broken')!, /not valid YAML/)
    assert.match(results.get('c_nope')!, /no such skill.*release/)
  })
})

describe('skills finder', () => {
  it('skips bad folders with a reason and never throws', () => {
    const ws = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-skill-ws-')))
    try {
      const root = join(ws, '.hearth', 'skills')
      skill(root, 'good', 'name: good\ndescription: fine', 'body\n')
      skill(root, 'list', '- a\n- b', 'body\n')
      skill(root, 'badname', 'name: "has spaces"\ndescription: x', 'body\n')
      skill(root, 'nodesc', 'name: nodesc', 'body\n')
      mkdirSync(join(root, 'empty-folder'))
      mkdirSync(join(root, 'unclosed'))
      writeFileSync(join(root, 'unclosed', 'SKILL.md'), '---\nname: unclosed\n')
      mkdirSync(join(root, 'binary'))
      writeFileSync(join(root, 'binary', 'SKILL.md'), Buffer.from([0, 1, 2]))
      const found = new Skills(null).find(ws)
      assert.deepEqual(
        found.skills.map((k) => k.name),
        ['good'],
      )
      const reasons = Object.fromEntries(found.skipped.map((k) => [k.path.split('/').at(-2), k.reason]))
      assert.match(reasons.list, /not a mapping/)
      assert.match(reasons.badname, /not letters/)
      assert.match(reasons.nodesc, /no `description`/)
      assert.match(reasons.unclosed, /no closing/)
      assert.match(reasons.binary, /not UTF-8/)
      assert.equal(reasons['empty-folder'], undefined, 'a folder without SKILL.md is not a skill')
    } finally {
      rmSync(ws, { recursive: true, force: true })
    }
  })
})
