// The log writer on a device that is always full (/dev/full answers every write with
// ENOSPC): lines are dropped, nothing throws, nothing waits, and a fatal line (which pino
// follows with a synchronous flush) returns at once. On a file it writes every line, in
// order. (The note on dropped lines, once writing works again: test/daemon/full-disk.test.ts.)
import assert from 'node:assert/strict'
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import pino from 'pino'
import { LogFile } from '../../src/log-file.ts'

describe('the log writer', () => {
  it('drops lines on a full device without throwing or blocking, fatal included', async (t) => {
    if (!existsSync('/dev/full')) return t.skip('no /dev/full on this system')
    const fd = openSync('/dev/full', 'w')
    try {
      const log = pino({ base: null }, new LogFile(fd))
      const started = performance.now()
      for (let i = 0; i < 1000; i++) log.info({ i }, 'a line')
      log.fatal('a fatal line') // pino flushes synchronously after fatal
      await sleep(50)
      log.error('another line')
      assert.ok(performance.now() - started < 5_000, 'no retry loop')
    } finally {
      closeSync(fd)
    }
  })

  it('writes every line in order to a file', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hearth-log-')), 'hearth.log')
    const fd = openSync(path, 'a')
    const file = new LogFile(fd)
    for (let i = 0; i < 100; i++) file.write(`{"i":${i}}\n`)
    const lines = readFileSync(path, 'utf8').trim().split('\n')
    assert.deepEqual(
      lines.map((l) => JSON.parse(l).i),
      Array.from({ length: 100 }, (_, i) => i),
    )
    closeSync(fd)
  })
})
