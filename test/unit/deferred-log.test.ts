// The daemon log opens after the daemon is ready: lines logged before that are written
// once it opens, in order, redacted like any other, with the moment they were logged.
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { DeferredLog } from '../../src/deferred-log.ts'

describe('deferred log', () => {
  it('queues until open, then writes in order with logged_at, redacting secrets', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hearth-log-'))
    const log = new DeferredLog()
    log.info('first')
    log.warn({ authorization: 'Bearer sk-SECRET', n: 2 }, 'second')
    await log.open(home)
    log.error({ n: 3 }, 'third')
    const read = () =>
      readFileSync(join(home, 'logs', 'hearth.log'), 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    // The destination writes in the background: wait for the three lines.
    const deadline = Date.now() + 3_000
    while (read().length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10))
    const lines = read()
    assert.deepEqual(
      lines.map((l) => l.msg),
      ['first', 'second', 'third'],
    )
    assert.ok(lines[0].logged_at && lines[1].logged_at)
    assert.equal(lines[2].logged_at, undefined, 'written directly once open')
    assert.equal(lines[1].authorization, '[redacted]')
    assert.equal(JSON.stringify(lines).includes('sk-SECRET'), false)
  })
})
