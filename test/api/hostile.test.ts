// Every operation in the route table gets the bad-input cases of hostile.ts, against one
// real daemon. Nothing here names a route: a new op is walked as soon as it is in ALL_OPS.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { ALL_OPS } from '../../src/schemas/index.ts'
import type { OpSpec } from '../../src/schemas/op.ts'
import { startDaemon, type TestDaemon } from '../helpers/daemon.ts'
import { assertProblem, hostileCases, send } from './hostile.ts'

const OPS = Object.entries(ALL_OPS) as [string, OpSpec][]

describe('hostile input, every operation', () => {
  let d: TestDaemon
  before(async () => {
    d = await startDaemon()
  })
  after(async () => {
    await d.stop()
  })

  for (const [id, op] of OPS) {
    describe(`${id}: ${op.method} ${op.path}`, () => {
      for (const c of hostileCases(op)) {
        it(c.name, { timeout: 30_000 }, async () => {
          const res = await send(d, c.request)
          const p = assertProblem(res, c.expect.status, c.expect.code, `${id} ${c.name}`)
          if (c.expect.detail) assert.ok(String(p.detail).includes(c.expect.detail), `detail: ${p.detail}`)
          for (const [name, pattern] of Object.entries(c.expect.headers ?? {})) {
            assert.match(String(res.headers[name]), pattern, `header ${name}`)
          }
        })
      }
      it('still serves afterwards', async () => {
        assert.equal((await send(d, { method: 'GET', path: '/server' })).status, 200)
        assert.equal(d.proc.exitCode, null)
      })
    })
  }
})
