// The V8 flags a kernel sets on itself (src/kernel/v8-flags.ts): WebAssembly stays on its
// baseline compiler however hot it runs. Each case runs in a Node process of its own, with
// V8's test intrinsics, against a small module whose hot loop V8 otherwise tiers up.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { describe, it } from 'node:test'
import { pathToFileURL } from 'node:url'
import { ROOT } from '../helpers/daemon.ts'

const FLAGS_MODULE = pathToFileURL(`${ROOT}/src/kernel/v8-flags.ts`).href

/** A module exporting f(n): the sum of n..1 in a loop. */
const WASM = [
  [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
  [0x01, 0x06, 0x01, 0x60, 0x01, 0x7f, 0x01, 0x7f], // type: (i32) -> i32
  [0x03, 0x02, 0x01, 0x00], // one function of that type
  [0x07, 0x05, 0x01, 0x01, 0x66, 0x00, 0x00], // exported as "f"
  [0x0a, 0x1b, 0x01, 0x19, 0x01, 0x01, 0x7f], // its body, one i32 local:
  [0x03, 0x40, 0x20, 0x01, 0x20, 0x00, 0x6a, 0x21, 0x01], // loop: acc += n
  [0x20, 0x00, 0x41, 0x01, 0x6b, 0x22, 0x00, 0x0d, 0x00, 0x0b], // n -= 1; again while n
  [0x20, 0x01, 0x0b], // acc
].flat()

/**
 * Runs f hot until V8 reports it compiled by its optimizing compiler or `ms` have passed;
 * prints which tier f ended on.
 */
function tierAfterHotLoop(setFlags: boolean, ms: number): string {
  const script = `
    ${setFlags ? `(await import(${JSON.stringify(FLAGS_MODULE)})).setKernelV8Flags()` : ''}
    const { f } = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array(${JSON.stringify(WASM)}))).exports
    const until = performance.now() + ${ms}
    while (!%IsTurboFanFunction(f) && performance.now() < until) {
      f(100000)
      await new Promise((resolve) => setImmediate(resolve))
    }
    console.log(%IsTurboFanFunction(f) ? 'optimized' : %IsLiftoffFunction(f) ? 'baseline' : 'other')
  `
  return execFileSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  }).trim()
}

describe('kernel V8 flags', () => {
  it('keep a hot WebAssembly function on the baseline compiler (without them V8 optimizes it)', () => {
    // The same loop without the flags: V8 does tier it up, so the case below is meaningful.
    assert.equal(tierAfterHotLoop(false, 10_000), 'optimized')
    assert.equal(tierAfterHotLoop(true, 1_500), 'baseline')
  })
})
