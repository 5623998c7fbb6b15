// `hearth chat` line mode reads commands and skills from the session's catalog: `/commands`
// and `/skills` list them (a skill's state is the session's selection, which only the
// daemon knows), `/NAME ARGS` sends the template from the catalog with `$ARGUMENTS`
// replaced, and the chat's own commands win over a template of the same name.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { answer } from '../fakes/tool-script.ts'
import { runCli } from '../helpers/daemon.ts'
import { type AgentSetup, newSession, startAgent } from '../tools/agent-helpers.ts'
import { writeCommand, writeSkill } from './helpers.ts'

describe('catalog in hearth chat', () => {
  let s: AgentSetup
  let sid: string
  before(async () => {
    s = await startAgent()
    writeSkill(join(s.workspace, '.hearth', 'skills'), 'deploy', 'Deploy the service')
    writeSkill(join(s.home, 'skills'), 'notes', 'Keep notes')
    const commands = join(s.workspace, '.hearth', 'commands')
    writeCommand(
      commands,
      'fix',
      '---\ndescription: Fix an issue\nargument-hint: ISSUE\n---\nFix issue $ARGUMENTS now.\n',
    )
    writeCommand(commands, 'context', 'NEVER SENT: the chat’s own /context wins\n')
    sid = await newSession(s)
    const etag = (await s.d.request({ path: `/sessions/${sid}?view=configuration` })).json().etag
    const r = await s.d.request({
      method: 'PATCH',
      path: `/sessions/${sid}?view=configuration`,
      headers: { 'content-type': 'application/merge-patch+json', 'if-match': etag },
      body: JSON.stringify({ selection: { skills: { deploy: false } } }),
    })
    assert.equal(r.status, 200, r.text())
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })

  it('/skills and /commands list the catalog; /fix ARGS sends its template', async () => {
    s.upstream.enqueue(answer('fixed'))
    const r = await runCli(
      ['chat', sid, '--home', s.home],
      {},
      {
        stdin: '/skills\n/commands\n/fix 42\n/context\n',
        timeoutMs: 30_000,
      },
    )
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /SKILL\s+SOURCE\s+STATE\s+DESCRIPTION/)
    assert.match(r.stdout, /deploy\s+workspace\s+off\s+Deploy the service/)
    assert.match(r.stdout, /notes\s+home\s+on\s+Keep notes/)
    assert.match(r.stdout, /\/fix ISSUE\s+workspace\s+Fix an issue/)
    assert.equal(s.upstream.requests.length, 1, 'only /fix sends a message')
    assert.match(JSON.stringify(s.upstream.requests[0].body.input), /Fix issue 42 now\./)
    assert.doesNotMatch(JSON.stringify(s.upstream.requests[0].body.input), /NEVER SENT/)
  })
})
