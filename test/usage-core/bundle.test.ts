// The usage core is a bundle of its own (scripts/build.mjs): the daemon's and the kernels'
// bundles hold none of it, and it holds nothing of the daemon. Reads the dist/ the tests run.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { builtInCorePath } from '../../src/usage-core/path.ts'
import { ROOT } from '../helpers/daemon.ts'

/** Text only the usage feeds hold: their endpoints' paths. */
const CORE_MARKS = [
  '/api/oauth/usage',
  'token_plan/remains',
  'monitor/usage/quota/limit',
  'copilot_internal/user',
]
/** Text only the daemon holds: its HTTP framework and its database. */
const DAEMON_MARKS = ['better-sqlite3', 'hono']

describe('the usage core bundle', () => {
  it('builtInCorePath() names dist/usage-core.mjs of this checkout', () => {
    assert.equal(builtInCorePath(), join(ROOT, 'dist', 'usage-core.mjs'))
  })

  it('is ASCII and holds nothing of the daemon', () => {
    const text = readFileSync(builtInCorePath(), 'utf8')
    assert.equal(text.search(/[^\0-\x7f]/), -1)
    for (const mark of CORE_MARKS) assert.ok(text.includes(mark), mark)
    for (const mark of DAEMON_MARKS) assert.ok(!text.includes(mark), `usage-core.mjs holds ${mark}`)
  })

  it('is in no other bundle', () => {
    const others = readdirSync(join(ROOT, 'dist')).filter((n) => n.endsWith('.mjs') && n !== 'usage-core.mjs')
    assert.ok(others.includes('daemon.mjs') && others.includes('kernel.mjs'))
    for (const name of others) {
      const text = readFileSync(join(ROOT, 'dist', name), 'utf8')
      for (const mark of CORE_MARKS) assert.ok(!text.includes(mark), `${name} holds ${mark}`)
    }
  })
})
