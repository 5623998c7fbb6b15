// /diff, /undo and /redo in the full-screen client, end to end: tmux runs `hearth` on a
// session of a real daemon whose fake upstream's model writes new.txt, edits keep.txt and
// runs a command that deletes doomed.txt; the tests answer the screens with keys and read
// the screen and the workspace on disk. The steps share one terminal and run in order.
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { answer, callTools } from '../fakes/tool-script.ts'
import {
  asBeforeTheRun,
  asTheRunLeftThem,
  enqueueChangingRun,
  KEEP_AFTER,
  read,
  recorded,
  sessionInWorkspace,
} from '../helpers/changing-run.ts'
import { BIN } from '../helpers/daemon.ts'
import { Tmux } from '../helpers/tmux.ts'
import { idle, message, putInput, type Setup, startWithUpstream, waitSession } from '../inputs/helpers.ts'

const ready = (screen: string) => /idle · .*fake-model/.test(screen) && screen.includes('──────')
const undoQuestion = /Put back 3 files as before the run\? y: restore · n or Esc: cancel/
/** The screen's selected row (marked ›). */
const selected = (screen: string) => /^› .*$/m.exec(screen)?.[0] ?? ''

describe('/diff, /undo and /redo in the full-screen client', () => {
  let s: Setup
  let t: Tmux
  let workspace: string
  let id: string
  const terminals: Tmux[] = []

  const command = async (text: string, what: string, check: (screen: string) => boolean) => {
    t.type(text)
    t.keys('Enter')
    return t.waitFor(check, what)
  }
  /**
   * The chat again (no question open), with `text` in its transcript: the screen says the
   * outcome as it closes, so an older line of the same text is never taken for it.
   */
  const backInChat = (text: string) => (x: string) =>
    ready(x) && !x.includes('y: restore') && !x.includes('o: overwrite') && x.includes(text)

  before(async () => {
    s = await startWithUpstream({ settings: { tools: { approval_policy: 'auto' } } })
    ;({ id, workspace } = await sessionInWorkspace(s))
    t = Tmux.start([process.execPath, BIN, '--home', s.d.home, 'chat', id], {
      columns: 100,
      rows: 40,
      cwd: workspace,
    })
    terminals.push(t)
    await t.waitFor(ready, 'the prompt')
  })
  after(async () => {
    for (const x of terminals) x.kill()
    await s.d.stop()
    await s.upstream.close()
  })

  it('/diff on a session whose runs changed nothing says so; Esc closes it', async () => {
    await command('/diff', 'the empty state', (x) => x.includes('No run of this session changed files.'))
    t.keys('Escape')
    await t.waitFor((x) => ready(x) && !x.includes('No run of this session'), 'the chat')
  })

  it('/diff lists the three files; Enter shows a coloured diff; Esc goes back, then to the chat', async () => {
    enqueueChangingRun(s)
    await command('change the files', 'the run', (x) => x.includes('Changed three files.') && ready(x))
    await recorded(s, id)
    assert.ok(asTheRunLeftThem(workspace))
    const list = await command(
      '/diff',
      'the list',
      (x) => /3 files changed/.test(x) && x.includes('doomed.txt'),
    )
    assert.match(list, /added\s+\+1 -0\s+new\.txt/)
    assert.match(list, /modified\s+\+1 -1\s+keep\.txt/)
    assert.match(list, /deleted\s+\+0 -1\s+doomed\.txt/)
    for (let i = 0; i < 3 && !selected(t.screen()).includes('keep.txt'); i++) {
      t.keys('Down')
      await t.waitFor((x) => selected(x) !== '', 'the selection')
    }
    assert.match(selected(t.screen()), /keep\.txt/)
    t.keys('Enter')
    const diff = await t.waitFor((x) => x.includes('+TWO'), 'the diff', 15_000, true)
    assert.match(diff, /\x1b\[32m\+TWO/, 'added lines green')
    assert.match(diff, /\x1b\[31m-two/, 'removed lines red')
    assert.match(t.screen(), /Diff · keep\.txt/)
    t.keys('Escape')
    await t.waitFor((x) => x.includes('doomed.txt') && !x.includes('+TWO'), 'the list again')
    t.keys('Escape')
    await t.waitFor((x) => ready(x) && !x.includes('Enter diff'), 'the chat')
    assert.ok(asTheRunLeftThem(workspace), '/diff writes nothing')
  })

  it('/undo lists the files; n and Esc cancel (nothing changed on disk), y puts them back', async () => {
    const asked = await command('/undo', 'the question', (x) => undoQuestion.test(x))
    for (const f of ['new.txt', 'keep.txt', 'doomed.txt']) assert.ok(asked.includes(f), f)
    t.type('n')
    await t.waitFor(backInChat('nothing restored'), 'the cancel')
    assert.ok(asTheRunLeftThem(workspace))

    await command('/undo', 'the question', (x) => undoQuestion.test(x))
    t.keys('Escape')
    await t.waitFor(backInChat('nothing restored'), 'the second cancel')
    assert.ok(asTheRunLeftThem(workspace))

    await command('/undo', 'the question', (x) => undoQuestion.test(x))
    t.type('y')
    const done = await t.waitFor(backInChat('undid run'), 'the restore')
    assert.match(done, /removed +new\.txt/)
    assert.match(done, /put back +doomed\.txt/)
    assert.ok(asBeforeTheRun(workspace))
  })

  it('/redo asks; Esc cancels, y puts the run’s result back', async () => {
    await command('/redo', 'the question', (x) => x.includes('Put back what the last restore replaced?'))
    t.keys('Escape')
    await t.waitFor(backInChat('nothing restored'), 'the cancel')
    assert.ok(asBeforeTheRun(workspace))

    await command('/redo', 'the question', (x) => x.includes('Put back what the last restore replaced?'))
    t.type('y')
    await t.waitFor(backInChat('undid restore'), 'the redo')
    assert.ok(asTheRunLeftThem(workspace))
  })

  it('a person’s edit in between is a conflict: Esc leaves it, o overwrites it', async () => {
    const mine = `${KEEP_AFTER}my own line\n`
    writeFileSync(join(workspace, 'keep.txt'), mine)
    await command('/undo', 'the question', (x) => undoQuestion.test(x))
    t.type('y')
    let screen = await t.waitFor((x) => x.includes('o: overwrite'), 'the conflict')
    assert.match(screen, /These files changed since the run:\n\s+keep\.txt/)
    t.keys('Escape')
    await t.waitFor(backInChat('nothing restored'), 'the cancel')
    assert.equal(read(workspace, 'keep.txt'), mine)
    assert.ok(read(workspace, 'new.txt') !== undefined, 'nothing written')

    await command('/undo', 'the question', (x) => undoQuestion.test(x))
    t.type('y')
    await t.waitFor((x) => x.includes('o: overwrite'), 'the conflict')
    t.type('o')
    screen = await t.waitFor(backInChat('undid run'), 'the overwrite')
    assert.ok(asBeforeTheRun(workspace), screen)
  })

  it('an /undo while a run of the session is working is refused and says so; the list stays, Esc closes it', async () => {
    const go = join(workspace, 'go')
    s.upstream.enqueue(
      callTools({ name: 'shell', arguments: { command: 'while [ ! -f go ]; do sleep 0.05; done' } }),
      answer('went'),
    )
    await putInput(s.d, id, message('wait for go'))
    await waitSession(s.d, id, (x) => x.status.phase !== 'idle')
    await command('/undo', 'the question', (x) => /Put back \d+ files? as before the run\?/.test(x))
    t.type('y')
    const refused = await t.waitFor((x) => x.includes('not restored:'), 'the refusal')
    assert.match(refused, /not restored: The session is not idle/)
    t.keys('Escape')
    await t.waitFor((x) => !x.includes('not restored:') && x.includes('──────'), 'back in the chat')
    writeFileSync(go, '')
    await waitSession(s.d, id, idle)
    assert.equal(read(workspace, 'go'), '', 'the run went on: nothing was restored under it')
  })
})
