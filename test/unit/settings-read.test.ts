// readSettingsFile: each caller gets its own deep copy of the parsed file (the parse itself
// is kept while the file is unchanged), with JSON's own keys, `__proto__` included.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { readSettingsFile } from '../../src/settings/files.ts'

const home = mkdtempSync(join(tmpdir(), 'hearth-settings-read-'))
after(() => rmSync(home, { recursive: true, force: true }))

describe('readSettingsFile', () => {
  it("gives each caller a deep copy: a caller's change never reaches the next read", () => {
    writeFileSync(join(home, 'config.json'), JSON.stringify({ tools: { hidden_paths: ['~/a'], n: 1 } }))
    const first = readSettingsFile(home, 'config.json') as any
    first.tools.hidden_paths.push('~/b')
    first.tools.n = 2
    first.extra = true
    assert.deepEqual(readSettingsFile(home, 'config.json'), { tools: { hidden_paths: ['~/a'], n: 1 } })
  })

  it('keeps a `__proto__` key as a key, never as the prototype', () => {
    writeFileSync(join(home, 'creds.json'), '{"__proto__": {"polluted": true}, "k": null}')
    const read = readSettingsFile(home, 'creds.json') as any
    assert.equal(Object.getPrototypeOf(read), Object.prototype)
    assert.equal(read.polluted, undefined)
    assert.deepEqual(Object.keys(read), ['__proto__', 'k'])
    assert.deepEqual(Object.getOwnPropertyDescriptor(read, '__proto__')?.value, { polluted: true })
  })
})
