// The wording of a run's changes (src/client/changes-view.ts) and the terminal client's
// changes screen (src/tui/changes-screen.ts) without a daemon: a stand-in client answers the
// snapshots ops with the shapes of src/schemas/snapshots.ts, and keys are given to the
// screen directly. The end-to-end tests are test/tui/changes.test.ts and
// test/cli/changes.test.ts.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FileChange, Restore, RunChanges } from '../../src/client/changes.ts'
import { restore } from '../../src/client/changes.ts'
import {
  changeRows,
  conflictsOf,
  countsText,
  diffLines,
  fileRefOf,
  findChange,
  pathText,
  restoredHeading,
  restoredLines,
  shownPath,
} from '../../src/client/changes-view.ts'
import { type HearthClient, NoDaemonError, ProblemError } from '../../src/client/client.ts'
import type { Problem } from '../../src/schemas/problems.ts'
import { type ChangesMode, ChangesScreen } from '../../src/tui/changes-screen.ts'
import { makeTheme } from '../../src/tui/theme.ts'

const WS = '/home/me/app'
const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '')

function change(path: string, extra: Partial<FileChange> = {}): FileChange {
  return {
    root: WS,
    path,
    old_path: null,
    status: 'modified',
    old_mode: '100644',
    new_mode: '100644',
    binary: false,
    additions: 2,
    deletions: 1,
    size_before: 10,
    size_after: 12,
    ...extra,
  }
}

const CHANGES: FileChange[] = [
  change('new.txt', { status: 'added', old_mode: null, additions: 3, deletions: 0, size_before: null }),
  change('src/edit.ts'),
  change('gone.txt', { status: 'deleted', new_mode: null, additions: 0, deletions: 4, size_after: null }),
  change('logo.png', { binary: true, additions: null, deletions: null }),
  change('bin/run', { old_mode: '100644', new_mode: '100755', additions: 0, deletions: 0 }),
  change('b.txt', { status: 'renamed', old_path: 'a.txt' }),
  change('x.txt', { root: '/srv/shared' }),
]

describe('changes worded for a person', () => {
  it('names files relative to the workspace, absolute in another root; renames and modes shown', () => {
    assert.equal(shownPath(CHANGES[1], WS), 'src/edit.ts')
    assert.equal(shownPath(CHANGES[6], WS), '/srv/shared/x.txt')
    assert.equal(pathText(CHANGES[5], WS), 'a.txt → b.txt')
    assert.equal(pathText(CHANGES[4], WS), 'bin/run  (mode 100644 → 100755)')
    assert.equal(countsText(CHANGES[0]), '+3 -0')
    assert.equal(countsText(CHANGES[3]), 'binary')
    assert.deepEqual(changeRows(CHANGES.slice(0, 3), WS), [
      ['added', '+3 -0', 'new.txt'],
      ['modified', '+2 -1', 'src/edit.ts'],
      ['deleted', '+0 -4', 'gone.txt'],
    ])
  })

  it('finds a change by its shown, ./-prefixed, old or absolute path; a file it did not change is a plain path', () => {
    assert.equal(findChange(CHANGES, './src/edit.ts', WS), CHANGES[1])
    assert.equal(findChange(CHANGES, `${WS}/gone.txt`, WS), CHANGES[2])
    assert.equal(findChange(CHANGES, 'a.txt', WS), CHANGES[5])
    assert.equal(findChange(CHANGES, '/srv/shared/x.txt', WS), CHANGES[6])
    assert.equal(findChange(CHANGES, 'x.txt', WS), undefined, 'another root is named absolutely')
    assert.deepEqual(fileRefOf('/srv/shared/x.txt', CHANGES, WS), { root: '/srv/shared', path: 'x.txt' })
    assert.deepEqual(fileRefOf(`${WS}/other.txt`, CHANGES, WS), { path: 'other.txt' })
    assert.deepEqual(fileRefOf('./other.txt', CHANGES, WS), { path: 'other.txt' })
  })

  it("sorts a unified diff's lines for colour", () => {
    const text =
      'diff --git a/f b/f\nindex 1..2 100644\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n same\n-old\n+new\n'
    assert.deepEqual(
      diffLines(text).map((l) => l.kind),
      ['head', 'head', 'head', 'head', 'hunk', 'text', 'remove', 'add'],
    )
  })

  it('reads the conflicts of a restore_conflict problem and words a finished restore', () => {
    const problem = {
      type: 'about:blank',
      status: 409,
      code: 'restore_conflict',
      title: 'Files changed since the run',
      detail: '',
      conflicts: [{ root: WS, path: 'src/edit.ts' }, { root: WS }],
    } as unknown as Problem
    assert.deepEqual(conflictsOf(problem), [{ root: WS, path: 'src/edit.ts' }])
    const r = restoreOf({
      files: [
        { root: WS, path: 'new.txt', action: 'deleted' },
        { root: WS, path: 'src/edit.ts', action: 'written' },
        { root: WS, path: 'same.txt', action: 'kept' },
      ],
    })
    assert.equal(restoredHeading(r), `undid run ${r.run_id}: 2 files restored (restore ${r.id})`)
    assert.deepEqual(restoredLines(r, WS), [
      'removed            new.txt',
      'put back           src/edit.ts',
      'already as it was  same.txt',
    ])
  })
})

function restoreOf(extra: Partial<Restore> = {}): Restore {
  return {
    id: '019ac8f0-0000-7000-8000-000000000001',
    session_id: '019ac8f0-0000-7000-8000-0000000000aa',
    run_id: '019ac8f0-0000-7000-8000-0000000000bb',
    undoes_restore_id: null,
    state: 'applied',
    error: null,
    recovered: false,
    files: [],
    snapshot_id: 'snap',
    created_at: '2026-11-29T00:00:00Z',
    ended_at: '2026-11-29T00:00:00Z',
    ...extra,
  }
}

/** A client whose ops answer from `answer` (an Error is thrown); the calls are recorded. */
function standIn(answer: (op: string, input: any) => unknown) {
  const calls: { op: string; input: any }[] = []
  const client = {
    call: async (op: string, input: any = {}) => {
      calls.push({ op, input })
      const body = answer(op, input)
      if (body instanceof Error) throw body
      return { status: 200, body, headers: new Headers() }
    },
  } as unknown as HearthClient
  return { client, calls }
}

const RUN = '019ac8f0-0000-7000-8000-0000000000bb'
const runChanges = (items: FileChange[]): RunChanges => ({
  run_id: RUN,
  state: 'recorded',
  files: items.length,
  approximate: false,
  items,
  skipped: [],
  next: null,
})
const conflict = () =>
  new ProblemError({
    type: 'about:blank',
    status: 409,
    code: 'restore_conflict',
    title: 'Files changed since the run',
    detail: '',
    conflicts: [{ root: WS, path: 'src/edit.ts' }],
  } as unknown as Problem)

function screenOf(mode: ChangesMode, answer: (op: string, input: any) => unknown) {
  const { client, calls } = standIn(answer)
  const said: string[] = []
  let closed = false
  const screen = new ChangesScreen({
    theme: makeTheme(true),
    rows: () => 20,
    requestRender: () => {},
    close: () => {
      closed = true
    },
    client: () => client,
    mode,
    sessionId: '019ac8f0-0000-7000-8000-0000000000aa',
    workspace: WS,
    say: (text) => said.push(text),
  })
  const text = () => screen.render(80).map(strip).join('\n')
  const until = async (what: string, check: () => boolean) => {
    for (let i = 0; i < 200 && !check(); i++) await sleep(5)
    assert.ok(check(), `${what}; the screen:\n${text()}`)
  }
  return { screen, calls, said, text, until, closed: () => closed }
}

function daemon(items: FileChange[], restoreAnswer: (input: any) => unknown = () => restoreOf()) {
  return (op: string, input: any) => {
    if (op === 'snapshots.session_changes')
      return {
        items: items.length
          ? [{ run_id: RUN, files: items.length, ended_at: '2026-11-29T00:00:00Z', restored_by: null }]
          : [],
        next: null,
      }
    if (op === 'snapshots.run_changes') return runChanges(items)
    if (op === 'snapshots.run_diff')
      return {
        root: WS,
        path: input.query.path,
        binary: false,
        truncated: false,
        text: '--- a/src/edit.ts\n+++ b/src/edit.ts\n@@ -1 +1 @@\n-old\n+new\n',
      }
    if (op === 'snapshots.restore_put') return restoreAnswer(input)
    if (op === 'sessions.get')
      return { last_change: { run_id: null, restore_id: restoreOf().id, files: 1, at: '' } }
    if (op === 'snapshots.restore_get')
      return restoreOf({ files: [{ root: WS, path: 'new.txt', action: 'deleted' }] })
    throw new Error(`unexpected op ${op}`)
  }
}

describe('the changes screen', () => {
  it('/diff lists the files; Enter shows a coloured diff, Esc goes back, Esc again closes', async () => {
    const s = screenOf('diff', daemon(CHANGES.slice(0, 3)))
    await s.until('the list', () => s.text().includes('gone.txt'))
    assert.match(s.text(), /run 019ac8f0-0000-7000-8000-0000000000bb: 3 files changed/)
    assert.match(s.text(), /› added\s+\+3 -0\s+new\.txt/)
    s.screen.handleInput('\x1b[B') // down: src/edit.ts
    s.screen.handleInput('\r')
    await s.until('the diff', () => s.text().includes('+new'))
    assert.match(s.text(), /Diff · src\/edit\.ts/)
    const coloured = s.screen.render(80).join('\n')
    assert.ok(coloured.includes('\x1b[32m+new'), 'added lines green')
    assert.ok(coloured.includes('\x1b[31m-old'), 'removed lines red')
    const diffCall = s.calls.find((c) => c.op === 'snapshots.run_diff')
    assert.deepEqual(diffCall?.input.query, { root: WS, path: 'src/edit.ts' })
    s.screen.handleInput('\x1b')
    await s.until('the list again', () => s.text().includes('gone.txt') && !s.text().includes('+new'))
    assert.equal(s.closed(), false)
    s.screen.handleInput('\x1b')
    assert.equal(s.closed(), true)
    assert.ok(!s.calls.some((c) => c.op === 'snapshots.restore_put'), '/diff restores nothing')
  })

  it('/diff says so when no run changed files', async () => {
    const s = screenOf('diff', daemon([]))
    await s.until('the empty state', () => s.text().includes('No run of this session changed files.'))
  })

  it('/undo: n cancels, y restores with a new id, a conflict offers o, which overwrites', async () => {
    const n = screenOf('undo', daemon(CHANGES.slice(0, 3)))
    await n.until('the question', () => /Put back 3 files as before the run\? y: restore/.test(n.text()))
    n.screen.handleInput('n')
    assert.equal(n.closed(), true)
    assert.deepEqual(n.said, ['nothing restored'])
    assert.ok(!n.calls.some((c) => c.op === 'snapshots.restore_put'))

    const sent: any[] = []
    const y = screenOf(
      'undo',
      daemon(CHANGES.slice(0, 3), (input) => {
        sent.push(input)
        return input.body.overwrite
          ? restoreOf({ files: [{ root: WS, path: 'src/edit.ts', action: 'written' }] })
          : conflict()
      }),
    )
    await y.until('the question', () => y.text().includes('y: restore'))
    y.screen.handleInput('y')
    await y.until('the conflict', () => y.text().includes('o: overwrite'))
    assert.match(y.text(), /These files changed since the run:\n\s+src\/edit\.ts/)
    y.screen.handleInput('o')
    await y.until('closed', () => y.closed())
    assert.match(y.said[0], /undid run .*: 1 file restored/)
    assert.deepEqual(
      sent.map((i) => i.body),
      [{ run_id: RUN }, { run_id: RUN, overwrite: true }],
    )
    assert.notEqual(sent[0].params.restore_id, sent[1].params.restore_id, 'overwrite is another intent')

    const esc = screenOf(
      'undo',
      daemon(CHANGES.slice(0, 3), () => conflict()),
    )
    await esc.until('the question', () => esc.text().includes('y: restore'))
    esc.screen.handleInput('y')
    await esc.until('the conflict', () => esc.text().includes('o: overwrite'))
    esc.screen.handleInput('\x1b')
    assert.equal(esc.closed(), true)
    assert.deepEqual(esc.said, ['nothing restored'])
  })

  it('/redo lists what the last restore changed and undoes it on y', async () => {
    const sent: any[] = []
    const s = screenOf(
      'redo',
      daemon(CHANGES, (input) => {
        sent.push(input.body)
        return restoreOf({
          run_id: null,
          undoes_restore_id: restoreOf().id,
          files: [{ root: WS, path: 'new.txt', action: 'written' }],
        })
      }),
    )
    await s.until('the question', () => s.text().includes('what the last restore replaced'))
    assert.match(s.text(), /removed +new\.txt/)
    s.screen.handleInput('y')
    await s.until('closed', () => s.closed())
    assert.deepEqual(sent, [{ restore_id: restoreOf().id }])
    assert.match(s.said[0], /^undid restore /)
  })
})

describe('a restore whose answer is lost', () => {
  it('is sent again with the same id; one refused before sending is not', async () => {
    let attempts = 0
    const { client, calls } = standIn(() =>
      ++attempts < 3 ? new NoDaemonError('reset', 'ECONNRESET') : restoreOf(),
    )
    await restore(client, 's', { run_id: RUN })
    assert.equal(calls.length, 3)
    assert.equal(new Set(calls.map((c) => c.input.params.restore_id)).size, 1)
    const refused = standIn(() => new NoDaemonError('refused', 'ECONNREFUSED'))
    await assert.rejects(restore(refused.client, 's', { run_id: RUN }), NoDaemonError)
    assert.equal(refused.calls.length, 1)
  })
})
