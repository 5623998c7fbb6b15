// The collection a process runs once its start-up work is done (src/util/compact-heap.ts):
// it gives back the young generation start-up grew, and only when the process is idle. Each
// case runs in a Node process of its own, whose young generation a burst of allocations
// has grown to its 2 MB semi-spaces.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { describe, it } from 'node:test'
import { pathToFileURL } from 'node:url'
import { ROOT } from '../helpers/daemon.ts'

const MODULE = pathToFileURL(`${ROOT}/src/util/compact-heap.ts`).href

/** The young generation's size before and after compactWhenIdle with `idle` as its answer. */
function youngBeforeAfter(idle: boolean, env: Record<string, string> = {}): [number, number] {
  const script = `
    const { compactWhenIdle } = await import(${JSON.stringify(MODULE)})
    const v8 = await import('node:v8')
    const young = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size
    let kept = []
    for (let i = 0; i < 200_000; i++) {
      kept.push({ i, s: 'x' + i })
      if (kept.length > 50_000) kept = []
    }
    kept = null
    const before = young()
    compactWhenIdle(() => ${idle}, 0)
    await new Promise((resolve) => setTimeout(resolve, 50))
    console.log(JSON.stringify([before, young()]))
  `
  const out = execFileSync(
    process.execPath,
    ['--max-semi-space-size=2', '--input-type=module', '-e', script],
    { encoding: 'utf8', env: { ...process.env, HEARTH_COMPACT_AFTER_START: '', ...env } },
  )
  return JSON.parse(out) as [number, number]
}

describe('compacting the heap after start', () => {
  it('shrinks a grown young generation when the process is idle', () => {
    const [before, after] = youngBeforeAfter(true)
    assert.ok(after <= before / 2, `young generation ${before} → ${after}`)
  })

  it('leaves the heap alone when the process has work, or when turned off', () => {
    // The collection leaves the young generation at its smallest (a quarter of the grown
    // one here); V8 may still move a page of it on its own meanwhile, on a loaded machine.
    const leftAlone = ([before, after]: [number, number]) =>
      assert.ok(after > before / 2, `young generation ${before} → ${after}`)
    leftAlone(youngBeforeAfter(false))
    leftAlone(youngBeforeAfter(true, { HEARTH_COMPACT_AFTER_START: '0' }))
  })

  it('drops the bytecode of functions that ran once, unless HEARTH_COMPACT_FLUSH=0', () => {
    const bytecodeAfter = (env: Record<string, string>) => {
      const script = `
        const { compactHeap } = await import(${JSON.stringify(MODULE)})
        const v8 = await import('node:v8')
        // Start-up code: five hundred functions, each run once.
        const fns = Array.from({ length: 500 }, (_, i) => new Function('a', 'let s = 0; for (let j = 0; j < a; j++) s += j * ' + i + '; return s + ' + i))
        for (const f of fns) f(3)
        compactHeap()
        console.log(v8.getHeapCodeStatistics().bytecode_and_metadata_size)
        globalThis.keep = fns
      `
      const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        encoding: 'utf8',
        env: { ...process.env, ...env },
      })
      return Number(out)
    }
    const flushed = bytecodeAfter({ HEARTH_COMPACT_FLUSH: '' })
    const kept = bytecodeAfter({ HEARTH_COMPACT_FLUSH: '0' })
    assert.ok(
      flushed < kept - 50_000,
      `bytecode and metadata after the collection: ${flushed} flushed, ${kept} kept`,
    )
  })
})
