// The daemon's and the kernel's bundles are ASCII (scripts/build.mjs, asciiOnly): one
// character past ASCII, even in a comment esbuild keeps, makes V8 hold a whole bundle's
// source as UTF-16 for the life of the process. Reads the dist/ the tests run.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { ROOT } from '../helpers/daemon.ts'

describe('bundles the daemon and kernels load', () => {
  for (const name of ['daemon.mjs', 'kernel.mjs', 'kernel-mcp.mjs']) {
    it(`${name} is ASCII`, () => {
      const text = readFileSync(join(ROOT, 'dist', name), 'utf8')
      const at = text.search(/[^\0-\x7f]/)
      assert.equal(at, -1, `${name}: ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 10))}`)
    })
  }
})
