// Commands and skills in the full-screen client, in tmux against a real daemon: `/commands`
// lists the session's command templates (read from its catalog) and completion then offers
// them beside the client's own commands, `/NAME ARGS` sends the expanded template upstream, `/commands` and `/skills`
// list the catalog, and a `/name` that is neither is refused without sending anything.
import assert from 'node:assert/strict'
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { writeCommand, writeSkill } from '../catalog/helpers.ts'
import { answer } from '../fakes/tool-script.ts'
import { BIN } from '../helpers/daemon.ts'
import { Tmux } from '../helpers/tmux.ts'
import { type Setup, startWithUpstream } from '../inputs/helpers.ts'

const ready = (screen: string) => /idle · .*fake-model/.test(screen) && screen.includes('──────')

describe('command templates in the full-screen client', () => {
  let s: Setup
  let workspace: string
  let t: Tmux | undefined
  before(async () => {
    s = await startWithUpstream()
    workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-tui-cat-')))
    const commands = join(workspace, '.hearth', 'commands')
    writeCommand(
      commands,
      'fixup',
      '---\ndescription: Fix an issue\nargument-hint: ISSUE\n---\nFix issue $ARGUMENTS now.\n',
    )
    writeCommand(commands, 'summarize', 'Summarize the repository.\n')
    writeSkill(join(workspace, '.hearth', 'skills'), 'deploy', 'Deploy the service')
  })
  after(async () => {
    t?.kill()
    await s.d.stop()
    await s.upstream.close()
    rmSync(workspace, { recursive: true, force: true })
  })

  it('completes a template name, sends /NAME ARGS expanded, lists /commands and /skills', async () => {
    t = Tmux.start([process.execPath, BIN, '--home', s.d.home], { columns: 100, rows: 30, cwd: workspace })
    await t.waitFor(ready, 'the prompt')
    // /commands lists the catalog's templates (and has completion offer them).
    t.type('/commands')
    t.keys('Enter')
    await t.waitFor(
      (x) => /\/fixup ISSUE\s+workspace\s+Fix an issue/.test(x) && /\/summarize\s+workspace/.test(x),
      '/commands',
    )
    t.type('/fix')
    await t.waitFor((x) => /fixup +ISSUE — Fix an issue/.test(x), 'the template offered by completion')
    t.keys('Tab')
    await t.waitFor((x) => /^ \/fixup\s*$/m.test(x), 'the completed name')
    s.upstream.enqueue(answer('FIXED-OK'))
    t.type('42')
    t.keys('Enter')
    await t.waitFor((x) => x.includes('FIXED-OK') && ready(x), 'the answer')
    const sent = s.upstream.requests.map((r) => JSON.stringify(r.body.input))
    assert.equal(sent.length, 1)
    assert.match(sent[0], /Fix issue 42 now\./)

    t.type('/skills')
    t.keys('Enter')
    await t.waitFor((x) => /deploy\s+workspace\s+on\s+Deploy the service/.test(x), '/skills')
    t.type('/nosuch thing')
    t.keys('Enter')
    await t.waitFor((x) => x.includes('unknown command /nosuch'), 'the refusal')
    assert.equal(s.upstream.requests.length, 1, 'nothing more was sent')
  })
})
