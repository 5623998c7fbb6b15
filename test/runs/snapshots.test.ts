// Workspace snapshots of runs against a real daemon, real files and real git: what a run
// changed (added, modified, deleted, mode, binary), bounded diffs, restore and redo, a
// person's edit in between (409 restore_conflict, then overwrite), chosen files, a busy
// session, idempotent PUTs, the note the model reads next, a directory a command replaced
// with a symlink (undone), a symlink planted after the run (refused), and two sessions on one
// workspace. snapshots-settings.test.ts goes on.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { after, before, beforeEach, describe, it } from 'node:test'
import { v7 as uuidv7 } from 'uuid'
import { answer, callTools } from '../fakes/tool-script.ts'
import { message, post, putInput } from '../inputs/helpers.ts'
import { type AgentSetup, newSession, runMessage, startAgent } from '../tools/agent-helpers.ts'
import { changesOf, getJson, getSession, putRestore, runAndRecord, waitFor } from './snapshot-helpers.ts'

const read = (ws: string, p: string) => readFileSync(join(ws, p), 'utf8')

/** The snapshot refs of every root's git directory under the home. */
function snapshotRefs(home: string): string[] {
  const dir = join(home, 'snapshots')
  if (!existsSync(dir)) return []
  const roots = readdirSync(dir).filter((key) => /^[0-9a-f]{16}$/.test(key))
  return roots.flatMap((key) =>
    execFileSync(
      'git',
      ['--git-dir', join(dir, key), 'for-each-ref', '--format=%(refname)', 'refs/hearth/'],
      {
        encoding: 'utf8',
      },
    )
      .split('\n')
      .filter(Boolean),
  )
}

describe('snapshots of runs', () => {
  let s: AgentSetup
  before(async () => {
    s = await startAgent({ tools: { approval_policy: 'auto' } })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })
  beforeEach(() => s.upstream.reset())

  it('a run that writes, edits and deletes: its changes, diffs, restore, the note to the model, redo, idempotent PUT', async () => {
    const ws = s.workspace
    writeFileSync(join(ws, 'b.txt'), 'one\nold\nthree\n')
    writeFileSync(join(ws, 'c.txt'), 'to be deleted\n')
    writeFileSync(join(ws, 'd.sh'), 'echo hi\n')
    const sid = await newSession(s)
    s.upstream.enqueue(
      callTools(
        { name: 'write', arguments: { path: 'a.txt', content: 'new file\n' } },
        { name: 'edit', arguments: { path: 'b.txt', old_string: 'old', new_string: 'new' } },
      ),
      callTools({
        name: 'shell',
        arguments: { command: "rm c.txt && chmod +x d.sh && printf 'bin\\000ary' > img.bin" },
      }),
      answer('done'),
    )
    const runId = await runAndRecord(s, sid, 'change things')
    const changes = await changesOf(s.d, sid, runId)
    assert.equal(changes.state, 'recorded')
    const by = Object.fromEntries(changes.items.map((c: any) => [c.path, c]))
    assert.deepEqual(Object.keys(by).sort(), ['a.txt', 'b.txt', 'c.txt', 'd.sh', 'img.bin'])
    assert.equal(changes.files, 5)
    assert.equal(by['a.txt'].status, 'added')
    assert.equal(by['b.txt'].status, 'modified')
    assert.equal(by['c.txt'].status, 'deleted')
    assert.equal(by['d.sh'].old_mode, '100644')
    assert.equal(by['d.sh'].new_mode, '100755')
    assert.equal(by['img.bin'].binary, true)
    assert.equal(by['a.txt'].root, ws)
    // The history's checkpoints view marks the run's group with what it changed.
    const marks = await getJson(s.d, `/sessions/${sid}/history?view=checkpoints`)
    assert.deepEqual(
      marks.items.filter((c: any) => c.changes).map((c: any) => c.changes),
      [[{ run_id: runId, files: 5 }]],
    )

    // Pages: two items, then the rest through the continuation.
    const first = await getJson(s.d, `/sessions/${sid}/runs/${runId}/changes?limit=2`)
    assert.equal(first.items.length, 2)
    const rest = await getJson(s.d, `/sessions/${sid}/runs/${runId}/changes?limit=10&next=${first.next}`)
    assert.equal(rest.items.length, 3)
    assert.equal(rest.next, null)

    const diff = await getJson(s.d, `/sessions/${sid}/runs/${runId}/changes/diff?path=b.txt`)
    assert.match(diff.text, /^-old$/m)
    assert.match(diff.text, /^\+new$/m)
    assert.equal(diff.truncated, false)
    const bin = await getJson(s.d, `/sessions/${sid}/runs/${runId}/changes/diff?path=img.bin`)
    assert.equal(bin.binary, true)
    assert.equal(bin.text.includes('\u0000'), false)
    const unchanged = await s.d.request({ path: `/sessions/${sid}/runs/${runId}/changes/diff?path=nope.txt` })
    assert.equal(unchanged.status, 404)
    assert.equal(unchanged.json().code, 'change_not_found')

    const list = await getJson(s.d, `/sessions/${sid}/changes`)
    assert.deepEqual(
      list.items.map((i: any) => [i.run_id, i.files, i.restored_by]),
      [[runId, 5, null]],
    )
    const read1 = await getSession(s.d, sid)
    assert.deepEqual([read1.last_change.run_id, read1.last_change.files], [runId, 5])

    // Undo: every file back as it was before the run.
    const restoreId = uuidv7()
    const undo = await putRestore(s.d, sid, {}, restoreId)
    assert.equal(undo.status, 201, undo.text())
    const restored = undo.json()
    assert.equal(restored.state, 'applied')
    assert.equal(restored.run_id, runId)
    assert.equal(existsSync(join(ws, 'a.txt')), false)
    assert.equal(read(ws, 'b.txt'), 'one\nold\nthree\n')
    assert.equal(read(ws, 'c.txt'), 'to be deleted\n')
    assert.equal(statSync(join(ws, 'd.sh')).mode & 0o111, 0)
    assert.equal(existsSync(join(ws, 'img.bin')), false)
    assert.equal((await getSession(s.d, sid)).last_change.restore_id, restoreId)
    assert.equal((await getJson(s.d, `/sessions/${sid}/changes`)).items[0].restored_by, restoreId)

    // The same PUT again answers the same restore; another body on the id is a conflict.
    const again = await putRestore(s.d, sid, {}, restoreId)
    assert.equal(again.status, 200)
    assert.deepEqual(again.json(), restored)
    const other = await putRestore(s.d, sid, { overwrite: true }, restoreId)
    assert.equal(other.status, 409)
    assert.equal(other.json().code, 'restore_id_conflict')
    assert.deepEqual((await getJson(s.d, `/sessions/${sid}/restores/${restoreId}`)).files, restored.files)

    // The model's next request says the workspace was restored, and which files.
    s.upstream.enqueue(answer('noted'))
    await runMessage(s, sid, 'what now?')
    const sent = JSON.stringify(s.upstream.requests.at(-1)?.body)
    assert.match(sent, /restored the workspace/)
    assert.match(sent, new RegExp(`before run ${runId}`))
    assert.match(sent, /c\.txt \(restored\)/)
    assert.match(sent, /a\.txt \(deleted\)/)

    // Redo: the restore undone puts back the run's result.
    const redo = await putRestore(s.d, sid, { restore_id: restoreId })
    assert.equal(redo.status, 201, redo.text())
    assert.equal(redo.json().undoes_restore_id, restoreId)
    assert.equal(read(ws, 'a.txt'), 'new file\n')
    assert.equal(read(ws, 'b.txt'), 'one\nnew\nthree\n')
    assert.equal(existsSync(join(ws, 'c.txt')), false)
    assert.notEqual(statSync(join(ws, 'd.sh')).mode & 0o111, 0)
    assert.equal(readFileSync(join(ws, 'img.bin')).toString('latin1'), 'bin\u0000ary')
  })

  it('a run that only reads takes no snapshot: its changes read none', async () => {
    writeFileSync(join(s.workspace, 'r.txt'), 'read me\n')
    const sid = await newSession(s)
    const refsBefore = snapshotRefs(s.d.home).length
    s.upstream.enqueue(callTools({ name: 'read', arguments: { path: 'r.txt' } }), answer('read'))
    const done = await runMessage(s, sid, 'read it')
    const changes = await changesOf(s.d, sid, done.latest_answer.run_id)
    assert.deepEqual([changes.state, changes.files, changes.items], ['none', 0, []])
    const marks = await getJson(s.d, `/sessions/${sid}/history?view=checkpoints`)
    assert.ok(marks.items.length > 0)
    assert.ok(marks.items.every((c: any) => c.changes === undefined))
    // The capture taken as the run started is dropped: no snapshot ref is left behind.
    await waitFor('the unused capture dropped', () => snapshotRefs(s.d.home).length === refsBefore)
    const none = await putRestore(s.d, sid, { run_id: done.latest_answer.run_id })
    assert.equal(none.status, 422)
    assert.equal(none.json().code, 'nothing_to_restore')
    const unknown = await changesOf(s.d, sid, uuidv7()).catch((e: Error) => e.message)
    assert.match(String(unknown), /404/)
  })

  it("a person's edit since the run: 409 restore_conflict naming it and nothing written; overwrite restores", async () => {
    const ws = s.workspace
    writeFileSync(join(ws, 'x.txt'), 'original\n')
    writeFileSync(join(ws, 'y.txt'), 'y original\n')
    const sid = await newSession(s)
    s.upstream.enqueue(
      callTools(
        { name: 'write', arguments: { path: 'x.txt', content: 'agent\n' } },
        { name: 'write', arguments: { path: 'y.txt', content: 'y agent\n' } },
      ),
      answer('ok'),
    )
    const runId = await runAndRecord(s, sid, 'write x and y')
    writeFileSync(join(ws, 'x.txt'), 'the person edited this\n')
    const refused = await putRestore(s.d, sid, { run_id: runId })
    assert.equal(refused.status, 409)
    const problem = refused.json()
    assert.equal(problem.code, 'restore_conflict')
    assert.deepEqual(problem.conflicts, [{ root: ws, path: 'x.txt' }])
    assert.equal(read(ws, 'x.txt'), 'the person edited this\n')
    assert.equal(read(ws, 'y.txt'), 'y agent\n', 'nothing written')
    const forced = await putRestore(s.d, sid, { run_id: runId, overwrite: true })
    assert.equal(forced.status, 201, forced.text())
    assert.equal(read(ws, 'x.txt'), 'original\n')
    assert.equal(read(ws, 'y.txt'), 'y original\n')
  })

  it('a restore of chosen files only', async () => {
    const ws = s.workspace
    const sid = await newSession(s)
    s.upstream.enqueue(
      callTools(
        { name: 'write', arguments: { path: 'p.txt', content: 'p\n' } },
        { name: 'write', arguments: { path: 'q.txt', content: 'q\n' } },
      ),
      answer('ok'),
    )
    const runId = await runAndRecord(s, sid, 'write p and q')
    const r = await putRestore(s.d, sid, { run_id: runId, files: [{ path: 'p.txt' }] })
    assert.equal(r.status, 201, r.text())
    assert.deepEqual(
      r.json().files.map((f: any) => [f.path, f.action]),
      [['p.txt', 'deleted']],
    )
    assert.equal(existsSync(join(ws, 'p.txt')), false)
    assert.equal(read(ws, 'q.txt'), 'q\n')
    // Only the roots the run's snapshots captured, and only paths inside them.
    const elsewhere = await putRestore(s.d, sid, { run_id: runId, files: [{ root: '/etc', path: 'hosts' }] })
    assert.equal(elsewhere.status, 422)
    assert.equal(elsewhere.json().code, 'nothing_to_restore')
    const parent = basename(ws)
    const escaping = await putRestore(s.d, sid, {
      run_id: runId,
      files: [{ path: `../${parent}-escaping.txt` }],
    })
    assert.equal(escaping.status, 422, escaping.text())
    assert.equal(existsSync(join(dirname(ws), `${parent}-escaping.txt`)), false)
  })

  it('a directory a command replaced with a link outside: undoing the run takes the link out, nothing written outside', async () => {
    const ws = s.workspace
    const outside = mkdtempSync(join(tmpdir(), 'hearth-outside-'))
    mkdirSync(join(ws, 'src'))
    writeFileSync(join(ws, 'src', 'a.txt'), 'inside\n')
    const sid = await newSession(s)
    s.upstream.enqueue(
      callTools({ name: 'shell', arguments: { command: `rm -rf src && ln -s ${outside} src` } }),
      answer('ok'),
    )
    const runId = await runAndRecord(s, sid, 'swap src')
    assert.equal(lstatSync(join(ws, 'src')).isSymbolicLink(), true)
    const r = await putRestore(s.d, sid, { run_id: runId })
    assert.equal(r.status, 201, r.text())
    assert.deepEqual(
      r.json().files.map((f: any) => `${f.path}:${f.action}`),
      ['src:deleted', 'src/a.txt:written'],
    )
    assert.equal(lstatSync(join(ws, 'src')).isDirectory(), true, 'a directory again, not the link')
    assert.equal(read(ws, 'src/a.txt'), 'inside\n')
    assert.deepEqual(readdirSync(outside), [], 'nothing written through the link')
  })

  it('a symlink planted after the run is never written through: 409 restore_failed, nothing written outside', async () => {
    const ws = s.workspace
    const outside = mkdtempSync(join(tmpdir(), 'hearth-outside-'))
    mkdirSync(join(ws, 'sub'))
    writeFileSync(join(ws, 'sub', 'f.txt'), 'inside\n')
    const sid = await newSession(s)
    s.upstream.enqueue(
      callTools({ name: 'write', arguments: { path: 'sub/f.txt', content: 'by the run\n' } }),
      answer('ok'),
    )
    const runId = await runAndRecord(s, sid, 'edit sub/f.txt')
    execFileSync('sh', ['-c', `rm -r sub && ln -s ${outside} sub`], { cwd: ws }) // not the run's
    const id = uuidv7()
    const r = await putRestore(s.d, sid, { run_id: runId, overwrite: true }, id)
    assert.equal(r.status, 409, r.text())
    assert.equal(r.json().code, 'restore_failed')
    assert.deepEqual(readdirSync(outside), [], 'nothing written through the link')
    const failed = await getJson(s.d, `/sessions/${sid}/restores/${id}`)
    assert.equal(failed.state, 'failed')
    assert.ok(failed.error)
    assert.equal(lstatSync(join(ws, 'sub')).isSymbolicLink(), true, 'the link is left as it was')
  })

  it('a restore while a run is active is 409 session_busy', async () => {
    const marker = join(s.workspace, `busy-${process.pid}`)
    const sid = await newSession(s)
    s.upstream.enqueue(
      callTools({ name: 'write', arguments: { path: 'busy.txt', content: 'b\n' } }),
      answer('ok'),
    )
    await runAndRecord(s, sid, 'write busy')
    s.upstream.enqueue(
      callTools({ name: 'shell', arguments: { command: `touch ${marker}; sleep 30` } }),
      answer('unused'),
    )
    await putInput(s.d, sid, message('wait'))
    await waitFor('the command', () => existsSync(marker))
    const busy = await putRestore(s.d, sid, {})
    assert.equal(busy.status, 409)
    assert.equal(busy.json().code, 'session_busy')
    const running = await getSession(s.d, sid)
    await post(s.d, `/sessions/${sid}/interrupt`, {
      run_id: running.status.run_id,
      through_input_order: running.input_order,
    })
    await waitFor('idle', async () => (await getSession(s.d, sid)).status.phase === 'idle')
  })

  it('two sessions on one workspace: restoring one run leaves the other’s files', async () => {
    const ws = s.workspace
    const one = await newSession(s)
    const two = await newSession(s)
    s.upstream.enqueue(
      callTools({ name: 'write', arguments: { path: 'one.txt', content: '1\n' } }),
      answer('ok'),
    )
    const runOne = await runAndRecord(s, one, 'one')
    s.upstream.enqueue(
      callTools({ name: 'write', arguments: { path: 'two.txt', content: '2\n' } }),
      answer('ok'),
    )
    const runTwo = await runAndRecord(s, two, 'two')
    assert.deepEqual(
      (await changesOf(s.d, two, runTwo)).items.map((c: any) => c.path),
      ['two.txt'],
    )
    const r = await putRestore(s.d, one, { run_id: runOne })
    assert.equal(r.status, 201, r.text())
    assert.equal(existsSync(join(ws, 'one.txt')), false)
    assert.equal(read(ws, 'two.txt'), '2\n')
  })
})
