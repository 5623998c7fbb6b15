// `hearth diff`, `hearth undo` and `hearth redo` through bin/hearth.mjs against a real daemon
// whose fake upstream's model writes new.txt, edits keep.txt and runs a command that deletes
// doomed.txt in a workspace of the test's own: the change list and a file's diff, a restore
// refused without a terminal and without --yes, one with --yes (the files back on disk), a
// person's edit in between named as a conflict with --overwrite advised, then overwritten,
// and redo putting the run's result back.
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import {
  asBeforeTheRun,
  asTheRunLeftThem,
  changingRun,
  KEEP_AFTER,
  read,
  sessionInWorkspace,
} from '../helpers/changing-run.ts'
import { BIN, runCli } from '../helpers/daemon.ts'
import { Tmux } from '../helpers/tmux.ts'
import { getSession, type Setup, startWithUpstream } from '../inputs/helpers.ts'

const noHome = { HEARTH_HOME: '' }

describe('hearth diff, undo and redo', () => {
  let s: Setup
  const cli = (...args: string[]) => runCli([...args, '--home', s.d.home], noHome)

  const terminals: Tmux[] = []
  /** The CLI at a terminal of its own (tmux); the window stays after it exits. */
  const atTerminal = (args: string[], env: Record<string, string> = {}) => {
    const t = Tmux.start([process.execPath, BIN, ...args, '--home', s.d.home], {
      columns: 100,
      rows: 30,
      env,
    })
    terminals.push(t)
    return t
  }

  before(async () => {
    s = await startWithUpstream({ settings: { tools: { approval_policy: 'auto' } } })
  })
  after(async () => {
    for (const t of terminals) t.kill()
    await s.d.stop()
    await s.upstream.close()
  })

  it('diff lists the run’s files and --file prints a diff, plain when not at a terminal', async () => {
    const { id, workspace } = await sessionInWorkspace(s)
    const runId = await changingRun(s, id)
    assert.ok(asTheRunLeftThem(workspace))
    const handle = id.replaceAll('-', '').slice(-8)

    const list = await cli('diff', handle)
    assert.equal(list.code, 0, list.stderr)
    const lines = list.stdout.trimEnd().split('\n')
    assert.equal(lines[0], `run ${runId}: 3 files changed`)
    assert.match(lines[1], /^STATUS\s+LINES\s+PATH$/)
    const rows = lines.slice(2).map((l) => l.split(/\s{2,}/))
    assert.deepEqual(
      rows.sort((a, b) => a[2].localeCompare(b[2])),
      [
        ['deleted', '+0 -1', 'doomed.txt'],
        ['modified', '+1 -1', 'keep.txt'],
        ['added', '+1 -0', 'new.txt'],
      ],
    )

    const same = await cli('diff', id, '--run', runId)
    assert.equal(same.stdout, list.stdout, '--run names the same run')

    const diff = await cli('diff', id, '--file', 'keep.txt')
    assert.equal(diff.code, 0, diff.stderr)
    assert.match(diff.stdout, /^-two$/m)
    assert.match(diff.stdout, /^\+TWO$/m)
    assert.match(diff.stdout, /^@@ /m)
    assert.doesNotMatch(diff.stdout, /\x1b\[/, 'no colour into a pipe')

    const json = await cli('diff', id, '--json')
    assert.equal(json.code, 0, json.stderr)
    const body = JSON.parse(json.stdout)
    assert.equal(body.run_id, runId)
    assert.equal(body.items.length, 3)

    const unknown = await cli('diff', id, '--file', 'never.txt')
    assert.equal(unknown.code, 1)
    assert.match(unknown.stderr, /did not change never\.txt/)
  })

  it('undo without a terminal needs --yes; with it the files are back; redo puts the run’s result back', async () => {
    const { id, workspace } = await sessionInWorkspace(s)
    await changingRun(s, id)

    const refused = await cli('undo', id)
    assert.equal(refused.code, 1)
    assert.match(refused.stderr, /pass --yes/)
    assert.match(refused.stdout, /new\.txt/, 'the files are listed first')
    assert.ok(asTheRunLeftThem(workspace), 'nothing restored')

    const undo = await cli('undo', id, '--yes')
    assert.equal(undo.code, 0, undo.stderr)
    assert.ok(asBeforeTheRun(workspace), undo.stdout)
    assert.match(undo.stdout, /^undid run .*: 3 files restored \(restore [0-9a-f-]{36}\)$/m)
    assert.match(undo.stdout, /^ {2}removed +new\.txt$/m)
    assert.match(undo.stdout, /^ {2}put back +doomed\.txt$/m)

    const redo = await cli('redo', id, '--yes')
    assert.equal(redo.code, 0, redo.stderr)
    assert.match(redo.stdout, /^undid restore /m)
    assert.ok(asTheRunLeftThem(workspace), redo.stdout)
  })

  it('a file changed since the run is a conflict naming --overwrite; --overwrite puts it back', async () => {
    const { id, workspace } = await sessionInWorkspace(s)
    await changingRun(s, id)
    writeFileSync(join(workspace, 'keep.txt'), `${KEEP_AFTER}my own line\n`)

    const refused = await cli('undo', id, '--yes')
    assert.equal(refused.code, 1)
    assert.match(refused.stderr, /nothing restored: this file was changed since:\n {2}keep\.txt\n/)
    assert.match(refused.stderr, new RegExp(`hearth undo ${id} --run \\S+ --overwrite`))
    assert.equal(read(workspace, 'new.txt'), 'fresh\n', 'nothing written')
    assert.equal(read(workspace, 'keep.txt'), `${KEEP_AFTER}my own line\n`)

    const forced = await cli('undo', id, '--yes', '--overwrite', '--json')
    assert.equal(forced.code, 0, forced.stderr)
    const restore = JSON.parse(forced.stdout)
    assert.equal(restore.state, 'applied')
    assert.ok(asBeforeTheRun(workspace))
    assert.equal((await getSession(s.d, id)).last_change?.restore_id, restore.id)
  })

  it('undo --file puts back only that file; a session without changes says so', async () => {
    const { id, workspace } = await sessionInWorkspace(s)
    await changingRun(s, id)
    const one = await cli('undo', id, '--file', 'doomed.txt', '--yes')
    assert.equal(one.code, 0, one.stderr)
    assert.equal(read(workspace, 'doomed.txt'), 'goodbye\n')
    assert.equal(read(workspace, 'new.txt'), 'fresh\n', 'the others stay')
    assert.equal(read(workspace, 'keep.txt'), KEEP_AFTER)

    const empty = await sessionInWorkspace(s)
    for (const args of [['diff'], ['undo', '--yes']]) {
      const r = await cli(args[0], empty.id, ...args.slice(1))
      assert.equal(r.code, 1, args[0])
      assert.match(r.stderr, /no run of session .* changed files/)
    }
    const redo = await cli('redo', empty.id, '--yes')
    assert.equal(redo.code, 1)
    assert.match(redo.stderr, /has no restore to undo/)
  })

  it('at a terminal: the diff is coloured (not with NO_COLOR), and undo asks y/N', async () => {
    const { id, workspace } = await sessionInWorkspace(s)
    await changingRun(s, id)
    const coloured = atTerminal(['diff', id, '--file', 'keep.txt'])
    let screen = await coloured.waitFor((x) => x.includes('+TWO'), 'the diff', 15_000, true)
    assert.match(screen, /\x1b\[32m\+TWO/)
    assert.match(screen, /\x1b\[31m-two/)
    const plain = atTerminal(['diff', id, '--file', 'keep.txt'], { NO_COLOR: '1' })
    screen = await plain.waitFor((x) => x.includes('+TWO'), 'the diff', 15_000, true)
    assert.doesNotMatch(screen, /\x1b\[3[12]m/)

    const no = atTerminal(['undo', id])
    await no.waitFor((x) => x.includes('Restore these files? [y/N]'), 'the question')
    assert.match(no.screen(), /new\.txt/)
    no.type('n')
    no.keys('Enter')
    await no.waitFor((x) => x.includes('nothing restored') && no.ended, 'the refusal')
    assert.ok(asTheRunLeftThem(workspace))

    const yes = atTerminal(['undo', id])
    await yes.waitFor((x) => x.includes('Restore these files? [y/N]'), 'the question')
    yes.type('y')
    yes.keys('Enter')
    await yes.waitFor((x) => x.includes('undid run') && yes.ended, 'the restore')
    assert.ok(asBeforeTheRun(workspace))
  })
})
