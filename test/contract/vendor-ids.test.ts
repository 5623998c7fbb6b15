// What hearth knows of a vendor lives in one place, its provider folder (src/providers/<id>/,
// listed by src/providers/registry.ts). Outside src/providers/ no file names a vendor: no
// string literal is a provider's id or a quota feed's name, but for the few allowed below
// (comments may name vendors: a comment line is not scanned).
// Code that needs a vendor fact asks the registry (or, in clients and schemas, the contract
// lists of src/schemas/extensions.ts).
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, it } from 'node:test'
import { PROVIDERS } from '../../src/providers/registry.ts'

const ROOT = join(import.meta.dirname, '../..')
const SRC = join(ROOT, 'src')

/** Quota feed names that are no extension id (chatgpt's feed, antigravity's Gemini meter). */
const FEED_NAMES = ['codex', 'gemini']

/** The occurrences allowed, by file: the ids it may name, and why. */
const ALLOWED: Record<string, { ids: readonly string[] | 'any'; why: string }> = {
  'src/schemas/extensions.ts': {
    ids: 'any',
    why: 'the contract lists of extensions, sign-ins and quota feeds; the registry checks its descriptors against them',
  },
  'src/schemas/auth.ts': { ids: ['chatgpt'], why: "an OpenAPI example of a login's provider" },
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return path === join(SRC, 'providers') ? [] : sourceFiles(path)
    return /\.(ts|mjs|js)$/.test(e.name) ? [path] : []
  })
}

const isComment = (line: string) => /^\s*(\/\/|\/\*|\*)/.test(line)

const asPattern = (s: string) => s.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')

describe('vendor ids outside src/providers/', () => {
  const ids = [...PROVIDERS.map((p) => p.id), ...FEED_NAMES]
  const literal = new RegExp(`(['"\`])(${ids.map(asPattern).join('|')})\\1`, 'g')

  it('the registry lists providers to look for', () => {
    assert.ok(PROVIDERS.length >= 6)
  })

  it('no file names one, but those allowed', () => {
    const found: string[] = []
    for (const path of sourceFiles(SRC)) {
      const file = relative(ROOT, path)
      const allowed = ALLOWED[file]?.ids
      const lines = readFileSync(path, 'utf8').split('\n')
      lines.forEach((line, at) => {
        if (isComment(line)) return
        for (const m of line.matchAll(literal)) {
          if (allowed === 'any' || allowed?.includes(m[2])) continue
          found.push(`${file}:${at + 1}: ${line.trim()}`)
        }
      })
    }
    assert.deepEqual(found, [], 'ask src/providers/registry.ts (or src/schemas/extensions.ts) instead')
  })

  it('every allowed file still names what it is allowed to', () => {
    for (const [file, { ids: allowed }] of Object.entries(ALLOWED)) {
      const text = readFileSync(join(ROOT, file), 'utf8')
      const named = [...text.matchAll(literal)].map((m) => m[2])
      assert.ok(
        named.some((id) => allowed === 'any' || allowed.includes(id)),
        `${file} names no vendor id any more: drop it from the allow-list`,
      )
    }
  })
})
