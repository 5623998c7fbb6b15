// kill -9 of the daemon in the middle of a restore (after its first file, the journal saying
// `applying`): the next start finishes it, every file at its target, recorded `recovered`;
// and a run whose after snapshot a crash prevented gets it at the next start.
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { v7 as uuidv7 } from 'uuid'
import { answer, callTools } from '../fakes/tool-script.ts'
import { startDaemon } from '../helpers/daemon.ts'
import { idle, message, putInput, waitSession } from '../inputs/helpers.ts'
import { newSession, startAgent } from '../tools/agent-helpers.ts'
import { changesOf, getJson, putRestore, runAndRecord, waitFor } from './snapshot-helpers.ts'

describe('restores across kill -9', () => {
  it('a restore killed after its first file is finished by the next start, never half applied', async () => {
    const pause = join(mkdtempSync(join(tmpdir(), 'hearth-pause-')), 'go')
    const s = await startAgent({
      tools: { approval_policy: 'auto' },
      env: { HEARTH_TEST_RESTORE_PAUSE: pause },
    })
    const ws = s.workspace
    const names = ['f1.txt', 'f2.txt', 'f3.txt', 'f4.txt']
    for (const n of names) writeFileSync(join(ws, n), `${n} before\n`)
    try {
      const sid = await newSession(s)
      s.upstream.enqueue(
        callTools(...names.map((n) => ({ name: 'write', arguments: { path: n, content: `${n} after\n` } }))),
        answer('ok'),
      )
      await runAndRecord(s, sid, 'change them all')
      const restoreId = uuidv7()
      const put = putRestore(s.d, sid, {}, restoreId).catch(() => undefined)
      await waitFor('the restore to pause after its first file', () => existsSync(`${pause}.reached`))
      const half = names.filter((n) => readFileSync(join(ws, n), 'utf8') === `${n} before\n`)
      assert.equal(half.length, 1, 'one file is back, the others not yet')
      await s.d.stop('SIGKILL')
      await put
      // The next start's recovery pauses after its first file; a redo asked meanwhile waits
      // for the recovery, then undoes the finished restore.
      const gate = join(mkdtempSync(join(tmpdir(), 'hearth-recovery-')), 'go')
      const d = await startDaemon({ home: s.home, env: { HEARTH_TEST_RECOVERY_PAUSE: gate } })
      try {
        await waitFor('the recovery to pause', () => existsSync(`${gate}.reached`))
        const redoId = uuidv7()
        const redo = putRestore(d, sid, { restore_id: restoreId }, redoId)
        writeFileSync(gate, '')
        const redone = await redo
        assert.equal(redone.status, 201, redone.text())
        for (const n of names) assert.equal(readFileSync(join(ws, n), 'utf8'), `${n} after\n`, n)
        const restore = await waitFor('the restore to be finished', async () => {
          const r = await getJson(d, `/sessions/${sid}/restores/${restoreId}`)
          return r.state === 'applied' ? r : undefined
        })
        assert.equal(restore.recovered, true)
        const read = await getJson(d, `/sessions/${sid}`)
        assert.equal(read.last_change.restore_id, redoId)
      } finally {
        await d.stop()
      }
    } finally {
      await s.upstream.close()
    }
  })

  it('a run killed between its before and after snapshots gets its after at the next start (approximate)', async () => {
    const s = await startAgent({ tools: { approval_policy: 'auto' } })
    const marker = join(s.workspace, 'started')
    try {
      const sid = await newSession(s)
      s.upstream.enqueue(
        callTools({
          name: 'shell',
          arguments: { command: `echo made > made.txt; touch ${marker}; sleep 30` },
        }),
      )
      await putInput(s.d, sid, message('make it'))
      await waitFor('the command', () => existsSync(marker))
      const runId = (await getJson(s.d, `/sessions/${sid}`)).status.run_id
      await s.d.stop('SIGKILL')
      const d = await startDaemon({ home: s.home })
      try {
        await waitSession(d, sid, idle)
        const changes = await waitFor('the after snapshot', async () => {
          const c = await changesOf(d, sid, runId)
          return c.state === 'recorded' ? c : undefined
        })
        assert.equal(changes.approximate, true)
        assert.deepEqual(changes.items.map((c: any) => c.path).sort(), ['made.txt', 'started'])
      } finally {
        await d.stop()
      }
    } finally {
      await s.upstream.close()
    }
  })
})
