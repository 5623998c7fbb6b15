// Slash commands through `hearth acp`: the workspace's command templates and skills reach
// the editor as available_commands_update once a session is new or loaded; a prompt
// `/NAME ARGS` naming a command sends the expanded template (what the model gets, recorded
// by the fake upstream), one naming a skill asks the model to use it, a skill the session
// turned off is not offered, and any other `/…` text is sent as typed.
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { before, describe, it } from 'node:test'
import { methods } from '@agentclientprotocol/sdk'
import { answer } from '../fakes/tool-script.ts'
import type { AgentSetup } from '../tools/agent-helpers.ts'
import { startEditor } from './editor.ts'
import { agentAcpFixture } from './fixture.ts'

function writeWorkspace(ws: string): void {
  mkdirSync(join(ws, '.hearth', 'commands'), { recursive: true })
  writeFileSync(
    join(ws, '.hearth', 'commands', 'review.md'),
    '---\ndescription: Review a file for bugs\nargument-hint: FILE\n---\nReview $ARGUMENTS carefully and list what could break.\n',
  )
  for (const [name, description] of [
    ['release', 'Cut a release of this project. Use when asked to release.'],
    ['retired', 'An old way of doing things.'],
  ]) {
    mkdirSync(join(ws, '.hearth', 'skills', name), { recursive: true })
    writeFileSync(
      join(ws, '.hearth', 'skills', name, 'SKILL.md'),
      `---\nname: ${name}\ndescription: ${description}\n---\n1. Run the tests.\n`,
    )
  }
}

/** The text the model was sent, whatever the wire: the request body as JSON. */
const sent = (s: AgentSetup) => JSON.stringify(s.upstream.requests.at(-1)?.body ?? {})

describe('slash commands and skills', () => {
  const acp = agentAcpFixture({ prepare: async (s) => writeWorkspace(s.workspace) })
  let sessionId: string
  before(async () => {
    sessionId = (await acp.editorSession()).sessionId
  })

  it('a new session announces its commands and skills', async () => {
    const update = await acp.editor.waitFor(
      'the commands',
      () => acp.editor.of(sessionId, 'available_commands_update')[0],
    )
    const byName = Object.fromEntries(update.availableCommands.map((c: any) => [c.name, c]))
    assert.equal(byName.review.description, 'Review a file for bugs')
    assert.deepEqual(byName.review.input, { hint: 'FILE' })
    assert.match(byName.release.description, /^Skill: Cut a release/)
    assert.ok(byName.retired, 'every skill the session has on')
  })

  it('/NAME ARGS of a command sends its template, of a skill asks for the skill', async () => {
    acp.s.upstream.reset().enqueue(answer('Reviewed.'), answer('Released.'), answer('Fine.'))
    await acp.prompt(sessionId, '/review src/main.ts')
    assert.match(sent(acp.s), /Review src\/main\.ts carefully and list what could break\./)
    await acp.prompt(sessionId, '/release version 2')
    assert.match(sent(acp.s), /Use the skill `release`[^"]*version 2/)
    await acp.prompt(sessionId, '/unknown thing')
    assert.match(sent(acp.s), /\/unknown thing/)
  })

  it('a skill turned off leaves the list at once, and a load announces it without', async () => {
    const read = await acp.s.d.request({ path: `/sessions/${sessionId}?view=configuration` })
    const r = await acp.s.d.request({
      method: 'PATCH',
      path: `/sessions/${sessionId}?view=configuration`,
      headers: { 'content-type': 'application/merge-patch+json', 'if-match': read.json().etag },
      body: JSON.stringify({ selection: { skills: { retired: false } } }),
    })
    assert.equal(r.status, 200, r.text())
    const refreshed = await acp.editor.waitFor(
      'the commands again',
      () => acp.editor.of(sessionId, 'available_commands_update')[1],
    )
    assert.ok(
      !refreshed.availableCommands.some((c: any) => c.name === 'retired'),
      'an editor following the session is told at once',
    )
    const other = await startEditor(acp.s.home)
    try {
      await other.agent.request(methods.agent.session.load, { sessionId, cwd: acp.workspace, mcpServers: [] })
      const update = await other.waitFor(
        'the commands',
        () => other.of(sessionId, 'available_commands_update')[0],
      )
      const names = update.availableCommands.map((c: any) => c.name)
      assert.ok(names.includes('review') && names.includes('release'))
      assert.ok(!names.includes('retired'), 'a skill turned off is not offered')
    } finally {
      await other.close()
    }
  })
})
