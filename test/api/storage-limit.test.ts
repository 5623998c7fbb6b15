// GET /storage stays within the 1 MiB JSON limit however long the home's paths are: a files
// page ends early and files_next lists the rest, each file once.
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { startDaemon, type TestDaemon } from '../helpers/daemon.ts'

describe('storage report size', () => {
  let d: TestDaemon
  const made = new Set<string>()
  before(async () => {
    d = await startDaemon()
    // Paths of control characters (six bytes each in JSON): ~22 KB per file item.
    const parts = Array.from({ length: 14 }, (_, i) => String.fromCharCode(1 + i).repeat(250))
    const dir = join(d.home, 'deep', ...parts)
    mkdirSync(dir, { recursive: true })
    for (let i = 0; i < 80; i++) {
      const name = `${String.fromCharCode(20)}${i}`.padStart(200, '\u001f')
      writeFileSync(join(dir, name), 'x')
      made.add(['deep', ...parts, name].join('/'))
    }
  })
  after(async () => {
    await d.stop()
  })

  it('ends a files page early within 1 MiB; files_next lists the rest', async () => {
    const listed: string[] = []
    let next: string | null = null
    let pages = 0
    do {
      const res = await d.request({
        path: `/storage?limit=200${next ? `&files_next=${encodeURIComponent(next)}` : ''}`,
      })
      assert.equal(res.status, 200, res.text())
      assert.ok(res.body.length <= 1024 * 1024, `a report of ${res.body.length} bytes`)
      const body = res.json()
      listed.push(...body.files.items.map((f: { path: string }) => f.path))
      next = body.files.next
      pages++
    } while (next !== null)
    assert.ok(pages > 1, 'the files needed more than one page')
    for (const path of made) assert.ok(listed.includes(path), `${JSON.stringify(path).slice(0, 40)} listed`)
    assert.equal(new Set(listed).size, listed.length, 'each file once')
  })
})
