// An admission commits before its fsync has ended: the WAL is fdatasynced on the thread pool
// while the run it starts is prepared. Nothing a client sees may run ahead of that sync: the
// hub holds the group's events (and everything committed after them) until it has ended,
// and the admission's own answer waits for it.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { v7 as uuidv7 } from 'uuid'
import { admitInput } from '../../src/inputs/admit.ts'
import { GroupCommit } from '../../src/inputs/group-commit.ts'
import type { ToKernel } from '../../src/kernel/protocol.ts'
import type { ActiveRun } from '../../src/runs/active-run.ts'
import type { RunsDeps } from '../../src/runs/deps.ts'
import { type StepRequest, sendAssembled } from '../../src/runs/step.ts'
import type { InputRequest } from '../../src/schemas/inputs.ts'
import type { SessionsCore } from '../../src/sessions/core.ts'
import { Sessions } from '../../src/sessions/service.ts'
import type { LogEvent } from '../../src/sessions/types.ts'
import { type Db, openDatabase, openStore } from '../../src/store/db.ts'

const dir = mkdtempSync(join(tmpdir(), 'hearth-admission-sync-'))
after(() => rmSync(dir, { recursive: true, force: true }))

function sessionsOn(db: Db): { core: SessionsCore; sid: string } {
  const sessions = new Sessions(db, {
    now: Date.now,
    defaults: { resolve: () => ({ provider_profile: 'p', model: 'm' }) },
    interrupt: async () => {},
  })
  const sid = uuidv7()
  sessions.create(sid, { kind: 'new', workspace: dir } as never)
  return { core: sessions.core, sid }
}

const message = (text: string) => ({ kind: 'message', text, client_id: 'test' }) as InputRequest

function admit(core: SessionsCore, commits: GroupCommit, sid: string, text: string, id = uuidv7()) {
  const body = message(text)
  return admitInput(core, commits, sid, id, body, () => body)
}

function listen(core: SessionsCore, sid: string): string[] {
  const heard: string[] = []
  core.hub.subscribe(sid, { onEvent: (e: LogEvent) => heard.push(e.kind), onDeleted: () => {} })
  return heard
}

describe('an admission and its sync', () => {
  it('holds the group’s events, and what commits after them, until the sync has ended', async () => {
    const db = openStore(join(dir, 'held.db'))
    try {
      const { core, sid } = sessionsOn(db)
      const heard = listen(core, sid)
      const a = await admit(core, new GroupCommit(core), sid, 'hi')
      assert.equal(a.status, 202)
      // Committed (a read on this connection sees it) but not yet on disk: nobody heard of it.
      assert.equal(core.require(sid).input_order, 1)
      assert.deepEqual(heard, [])
      const settled = core.hub.settled()
      assert.ok(settled, 'answers wait while the sync runs')
      // A later commit (a run's start, say) waits behind the admission.
      core.transact((tx) => tx.append(sid, 'test.later', {}))
      assert.deepEqual(heard, [])
      await a.durable
      await settled
      assert.deepEqual(heard, ['input.accepted', 'test.later'])
      assert.equal(core.hub.settled(), undefined, 'nothing waits once it is durable')
    } finally {
      db.close()
    }
  })

  it('runs what the admission starts right after its commit, held with it until the sync', async () => {
    const db = openStore(join(dir, 'started.db'))
    try {
      const { core, sid } = sessionsOn(db)
      const heard = listen(core, sid)
      const order: string[] = []
      const body = message('hi')
      const admitted = admitInput(
        core,
        new GroupCommit(core),
        sid,
        uuidv7(),
        body,
        () => body,
        (a) => {
          order.push(`started ${a.status}`)
          // A run's start commits here, before the group's sync begins.
          core.transact((tx) => tx.append(sid, 'test.started', {}))
        },
      )
      const a = await admitted
      order.push('answered')
      assert.deepEqual(order, ['started 202', 'answered'])
      assert.deepEqual(heard, [])
      await a.durable
      assert.deepEqual(heard, ['input.accepted', 'test.started'])
    } finally {
      db.close()
    }
  })

  it('answers a repeat only once the first admission of its id is durable', async () => {
    const db = openStore(join(dir, 'repeat.db'))
    try {
      const { core, sid } = sessionsOn(db)
      const heard = listen(core, sid)
      const commits = new GroupCommit(core)
      const id = uuidv7()
      const first = await admit(core, commits, sid, 'hi', id)
      const repeat = await admit(core, commits, sid, 'hi', id)
      assert.equal(repeat.input.acceptance_order, first.input.acceptance_order)
      let answered = false
      void repeat.durable.then(() => {
        answered = true
      })
      await Promise.resolve()
      assert.equal(answered, false, 'the repeat waits for the first one’s sync')
      await repeat.durable
      assert.deepEqual(heard, ['input.accepted'])
    } finally {
      db.close()
    }
  })

  it('sends the step, ready meanwhile, to the kernel only once the input is durable', async () => {
    const db = openStore(join(dir, 'step.db'))
    try {
      const { core, sid } = sessionsOn(db)
      const sent: ToKernel[] = []
      const run = {
        step: 0,
        started: { run_id: 'r', provider_profile: 'p' },
        scope: { workspace: dir, allowedRoots: [], sandbox: 'workspace-write', skillsOff: [] },
        transport: { extension: 'openai-compatible', profile: { model: 'm' } },
        kernel: { send: (m: ToKernel) => sent.push(m) },
        earlyResults: new Map(),
        offered: [],
        finished: false,
      } as unknown as ActiveRun
      const d = { core, onError: () => {} } as unknown as RunsDeps
      const step = { request: { model: 'm', messages: [] }, estimate: {}, compaction: null, span: null }
      const release = core.hub.hold()
      sendAssembled(d, sid, run, step as unknown as StepRequest)
      assert.equal(run.stepHeld, true)
      await new Promise((r) => setImmediate(r))
      assert.equal(sent.length, 0, 'nothing leaves while the input syncs')
      release()
      await core.hub.settled()
      await new Promise((r) => setImmediate(r))
      assert.equal(sent.length, 1)
      assert.equal(sent[0].type, 'step')
      assert.equal(run.stepHeld, false)
      // With nothing syncing, the step leaves at once.
      sendAssembled(d, sid, run, step as unknown as StepRequest)
      assert.equal(sent.length, 2)
    } finally {
      db.close()
    }
  })

  it('syncs inline, publishing at once, on a connection without a WAL flusher', async () => {
    const db = openDatabase(join(dir, 'plain.db'))
    try {
      const { migrate } = await import('../../src/store/db.ts')
      migrate(db)
      const { core, sid } = sessionsOn(db)
      const heard = listen(core, sid)
      const a = await admit(core, new GroupCommit(core), sid, 'hi')
      assert.deepEqual(heard, ['input.accepted'])
      await a.durable
    } finally {
      db.close()
    }
  })
})
