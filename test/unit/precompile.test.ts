// The validators of a first turn's operations (create a session, watch it, send an input)
// are compiled while the daemon is idle after start, and only those.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { precompileFirstRun } from '../../src/http/app.ts'
import { isCompiled } from '../../src/http/validate.ts'
import { ALL_OPS } from '../../src/schemas/index.ts'
import type { OpSpec } from '../../src/schemas/op.ts'

const OPS: OpSpec[] = Object.values(ALL_OPS)

describe('precompileFirstRun', () => {
  it('compiles the params, query and body of the first turn’s operations, and no others', async () => {
    const routes = OPS.map((op) => ({ id: `${op.method} ${op.path}`, op, handler: async () => ({}) }))
    const first = (method: string, path: string) => {
      const op = OPS.find((o) => o.method === method && o.path === path)
      assert.ok(op, `${method} ${path}`)
      return op
    }
    const create = first('PUT', '/sessions/{session_id}')
    const input = first('PUT', '/sessions/{session_id}/inputs/{input_id}')
    const change = first('PATCH', '/sessions/{session_id}')
    assert.ok(create.body && input.body && change.body)
    assert.equal(isCompiled(input.body), false)
    await precompileFirstRun(routes as never)
    assert.equal(isCompiled(create.body), true)
    assert.equal(isCompiled(input.body), true)
    assert.equal(isCompiled(input.params as never), true)
    assert.equal(isCompiled(change.body), false, 'a later operation compiles on its first use')
  })
})
