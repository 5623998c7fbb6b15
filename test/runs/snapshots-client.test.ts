// The client's snapshot calls (src/client/snapshots.ts) against a real daemon: a run's
// changes and a diff, a restore refused for a conflict (its files through conflictsOf),
// then overwritten, and a redo of the last restore found from the session read.
import assert from 'node:assert/strict'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { HearthClient } from '../../src/client/client.ts'
import {
  conflictsOf,
  lastRestoreId,
  redo,
  restore,
  runChanges,
  runFileDiff,
  sessionChanges,
} from '../../src/client/snapshots.ts'
import { answer, callTools } from '../fakes/tool-script.ts'
import { type AgentSetup, newSession, startAgent } from '../tools/agent-helpers.ts'
import { runAndRecord } from './snapshot-helpers.ts'

describe('snapshot calls of the client', () => {
  let s: AgentSetup
  let client: HearthClient
  before(async () => {
    s = await startAgent({ tools: { approval_policy: 'auto' } })
    client = HearthClient.fromHome(s.home)
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })

  it('changes, diff, a conflict, overwrite, redo', async () => {
    const ws = s.workspace
    writeFileSync(join(ws, 'n.txt'), 'before\n')
    const sid = await newSession(s)
    s.upstream.enqueue(
      callTools(
        { name: 'write', arguments: { path: 'n.txt', content: 'after\n' } },
        { name: 'write', arguments: { path: 'm.txt', content: 'made\n' } },
      ),
      answer('ok'),
    )
    const runId = await runAndRecord(s, sid, 'write')
    const changes = await runChanges(client, sid, runId)
    assert.deepEqual(changes.items.map((c) => c.path).sort(), ['m.txt', 'n.txt'])
    assert.match((await runFileDiff(client, sid, runId, 'n.txt')).text, /^\+after$/m)
    assert.deepEqual(
      (await sessionChanges(client, sid)).items.map((i) => i.run_id),
      [runId],
    )
    assert.equal(await lastRestoreId(client, sid), null)
    assert.equal(await redo(client, sid), null, 'nothing to redo before a restore')

    writeFileSync(join(ws, 'n.txt'), 'mine\n')
    const refused = await restore(client, sid, { run_id: runId }).catch((e) => e)
    assert.deepEqual(conflictsOf(refused), [{ root: ws, path: 'n.txt' }])
    const done = await restore(client, sid, { run_id: runId, overwrite: true })
    assert.equal(done.state, 'applied')
    assert.equal(readFileSync(join(ws, 'n.txt'), 'utf8'), 'before\n')
    assert.equal(existsSync(join(ws, 'm.txt')), false)
    assert.equal(await lastRestoreId(client, sid), done.id)

    const redone = await redo(client, sid)
    assert.equal(redone?.undoes_restore_id, done.id)
    assert.equal(
      readFileSync(join(ws, 'n.txt'), 'utf8'),
      'mine\n',
      'the redo puts back what the restore replaced',
    )
    assert.equal(readFileSync(join(ws, 'm.txt'), 'utf8'), 'made\n')
  })
})
