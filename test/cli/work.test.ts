// `hearth work` against a running daemon, through bin/hearth.mjs: add (with a parent), list
// (table and JSON), set and done by the start of an id, rm with a note for a session, and
// the errors a person sees.
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { runCli, startDaemon, type TestDaemon } from '../helpers/daemon.ts'
import { createSession } from '../streams/sse-client.ts'

describe('hearth work', () => {
  let d: TestDaemon
  let ws: string
  before(async () => {
    d = await startDaemon()
    ws = mkdtempSync(join(d.home, 'ws-'))
  })
  after(async () => {
    await d.stop()
  })
  const cli = (...args: string[]) =>
    runCli(['work', ...args, '--home', d.home, '--workspace', ws], { HEARTH_HOME: '' })

  it('adds, lists, changes and removes items by the start of their ids', async () => {
    const epic = await cli('add', 'Ship 1.0')
    assert.equal(epic.code, 0, epic.stderr)
    const epicId = epic.stdout.trim()
    assert.match(epicId, /^[0-9a-f]{8}-[0-9a-f]{4}-7/)
    const task = await cli(
      'add',
      'Write the notes',
      '--parent',
      epicId.slice(0, 36),
      '--notes',
      'user-facing',
    )
    assert.equal(task.code, 0, task.stderr)
    const taskId = task.stdout.trim()

    const list = await cli('list')
    assert.equal(list.code, 0, list.stderr)
    const lines = list.stdout.trimEnd().split('\n')
    assert.match(lines[0], /^ID\s+STATUS\s+PARENT\s+TITLE$/)
    assert.match(lines[1], new RegExp(`^${epicId.slice(0, 13)}\\s+open\\s+Ship 1\\.0$`))
    assert.match(
      lines[2],
      new RegExp(`^${taskId.slice(0, 13)}\\s+open\\s+${epicId.slice(0, 13)}\\s+Write the notes$`),
    )

    // Two ids made in the same millisecond share their first characters: the whole id names
    // one for sure (the start of an id is tested in the lookup below).
    const set = await cli('set', taskId, '--status', 'in_progress', '--title', 'Write the release notes')
    assert.equal(set.code, 0, set.stderr)
    assert.equal(set.stdout, `${taskId.slice(0, 13)} in_progress: Write the release notes\n`)
    const done = await cli('done', taskId.toUpperCase())
    assert.equal(done.stdout, `${taskId.slice(0, 13)} done: Write the release notes\n`)

    const json = JSON.parse((await cli('list', '--json')).stdout)
    assert.deepEqual(
      json.map((i: { id: string; status: string; notes: string }) => [i.id, i.status, i.notes]),
      [
        [epicId, 'open', ''],
        [taskId, 'done', 'user-facing'],
      ],
    )

    const busy = await cli('rm', epicId)
    assert.equal(busy.code, 1)
    assert.match(busy.stderr, /work_item_has_children|children/)
    const sid = await createSession(d, { kind: 'new', workspace: ws })
    // The session named by its handle, as `hearth sessions` shows it.
    const rm = await cli('rm', taskId, '--notify', sid.slice(-6))
    assert.equal(rm.code, 0, rm.stderr)
    assert.equal(rm.stdout, `removed ${taskId.slice(0, 13)} (a note waits for the session)\n`)
    assert.equal((await cli('rm', epicId)).code, 0)
    assert.equal((await cli('list')).stdout, `No work items in ${ws}. Add one with hearth work add TITLE.\n`)
  })

  it('says what is wrong: an unknown id, a bad status, nothing to change, a bad verb', async () => {
    const unknown = await cli('done', 'ffffffff')
    assert.equal(unknown.code, 1)
    assert.match(unknown.stderr, /no work item ffffffff/)
    const id = (await cli('add', 'x')).stdout.trim()
    const bad = await cli('set', id, '--status', 'finished')
    assert.equal(bad.code, 2)
    assert.match(bad.stderr, /--status is one of open, in_progress, done, cancelled/)
    assert.equal((await cli('set', id)).code, 2)
    const verb = await cli('frobnicate')
    assert.equal(verb.code, 2)
    assert.match(verb.stderr, /unknown work command frobnicate/)
  })
})
