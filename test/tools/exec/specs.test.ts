// The exec tools as the loop sees them: names, effects, schemas that accept good arguments
// and refuse bad ones, and one-line summaries.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Compile } from 'typebox/compile'
import { createExecTools, execTools } from '../../../src/tools/exec/index.ts'

const byName = new Map(execTools.map((t) => [t.name, t]))

describe('exec tool specs', () => {
  it('lists shell and the job tools with their effects', () => {
    assert.deepEqual(
      execTools.map((t) => [t.name, t.effect]),
      [
        ['shell', 'exec'],
        ['job_start', 'exec'],
        ['job_output', 'read'],
        ['job_stop', 'exec'],
        ['job_list', 'read'],
      ],
    )
    assert.equal(createExecTools({ home: '/elsewhere' }).length, execTools.length)
    for (const t of execTools) assert.ok(t.description.length > 40, t.name)
  })

  it('checks arguments by their schemas', () => {
    const check = (name: string, args: unknown) => Compile(byName.get(name)!.parameters).Check(args)
    assert.equal(check('shell', { command: 'ls' }), true)
    assert.equal(check('shell', { command: 'ls', cwd: 'src', timeout_seconds: 600 }), true)
    assert.equal(check('shell', { command: 'ls', timeout_seconds: 601 }), false)
    assert.equal(check('shell', { command: 'ls', timeout_seconds: 0 }), false)
    assert.equal(check('shell', { command: '' }), false)
    assert.equal(check('shell', { command: 'ls', extra: 1 }), false)
    assert.equal(check('job_output', { id: 'j123456', offset: 10, max_bytes: 65536 }), true)
    assert.equal(check('job_output', { id: 'j123456', max_bytes: 65537 }), false)
    assert.equal(check('job_output', { id: 'j123456', offset: -1 }), false)
    assert.equal(check('job_stop', {}), false)
    assert.equal(check('job_list', {}), true)
  })

  it('summarizes a call on one line', () => {
    assert.equal(
      byName.get('shell')!.summarize({ command: 'npm   test\n  --watch' }),
      'shell: npm test --watch',
    )
    const long = byName.get('job_start')!.summarize({ command: 'x'.repeat(500) })
    assert.ok(long.length <= 130 && long.endsWith('…'))
  })
})
