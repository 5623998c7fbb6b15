// Coded bodies that decode to the inputs route's limit (a 2 KB zstd frame declaring ~69 MiB):
// the memory decoding may take at once is bounded across requests (503 decode_busy with
// Retry-After beyond it), and after a burst the daemon gives the memory back.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import zlib from 'node:zlib'
import { v7 as uuidv7 } from 'uuid'
import { INPUT_BODY_LIMIT } from '../../src/schemas/common.ts'
import { type RawResponse, startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'
import { assertProblem } from './hostile.ts'

const MiB = 1024 * 1024

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024
}

describe('large zstd bodies', () => {
  let d: TestDaemon
  let sid: string
  // Spaces: valid UTF-8 that is not JSON, so each request decodes all of it, then is refused.
  const bomb = zlib.zstdCompressSync(Buffer.alloc(INPUT_BODY_LIMIT - 1024, 0x20))

  before(async () => {
    d = await startDaemon()
    sid = uuidv7()
    const created = await d.request({
      method: 'PUT',
      path: `/sessions/${sid}`,
      headers: { 'content-type': 'application/json', 'if-none-match': '*' },
      body: JSON.stringify({ kind: 'new', workspace: tempHome('hearth-ws-') }),
    })
    assert.equal(created.status, 201, created.text())
  })
  after(async () => {
    assert.equal(await d.stop(), 0)
  })

  const send = (): Promise<RawResponse> =>
    d.request({
      method: 'PUT',
      path: `/sessions/${sid}/inputs/${uuidv7()}`,
      headers: { 'content-type': 'application/json', 'content-encoding': 'zstd' },
      body: bomb,
    })

  it('decodes two at once, refuses the rest with 503 decode_busy, and gives the memory back', async () => {
    assert.ok(bomb.length < 4096)
    const pid = d.proc.pid as number
    const baseline = rssMiB(pid)
    const answers = await Promise.all(Array.from({ length: 6 }, send))
    const busy = answers.filter((r) => r.status === 503)
    for (const r of answers) {
      if (r.status === 503) {
        assertProblem(r, 503, 'decode_busy')
        assert.equal(r.headers['retry-after'], '1')
      } else {
        assertProblem(r, 400, 'malformed_json', 'decoded in full, then parsed')
      }
    }
    assert.ok(busy.length >= 1 && busy.length <= 4, `${busy.length} of 6 refused`)
    // The budget is given back: a body sent alone is decoded again.
    assertProblem(await send(), 400, 'malformed_json')
    // And so is the memory: within a few seconds the daemon is back near where it started
    // (it stayed ~550 MiB above when decoded chunks and text waited for a collection).
    let rss = rssMiB(pid)
    for (let i = 0; i < 50 && rss > baseline + 64; i++) {
      await sleep(100)
      rss = rssMiB(pid)
    }
    assert.ok(
      rss <= baseline + 64,
      `RSS ${rss.toFixed(0)} MiB after the burst, ${baseline.toFixed(0)} before`,
    )
    assert.ok(INPUT_BODY_LIMIT > 64 * MiB)
  })
})
