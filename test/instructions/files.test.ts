// The file walk on its own, over real files: an unchanged set is stat calls only (no file is
// opened again), any change to a file is seen, and cuts never split a character.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { compose } from '../../src/instructions/compose.ts'
import { type FoundFile, InstructionFiles, MAX_FILE_BYTES } from '../../src/instructions/files.ts'
import { characterBoundary, decode } from '../../src/util/text-file.ts'

describe('instruction files', () => {
  const root = mkdtempSync(join(tmpdir(), 'hearth-instr-files-'))
  after(() => rmSync(root, { recursive: true, force: true }))
  const ours = <T extends { path: string }>(files: T[]) => files.filter((f) => f.path.startsWith(root))

  it('opens no file again while the set is unchanged, and re-reads only the one that changed', () => {
    const home = join(root, 'home')
    const ws = join(root, 'cache/a/b')
    mkdirSync(home, { recursive: true })
    mkdirSync(ws, { recursive: true })
    writeFileSync(join(home, 'AGENTS.md'), 'global\n')
    writeFileSync(join(root, 'cache/AGENTS.md'), 'outer\n')
    writeFileSync(join(ws, 'AGENTS.md'), 'inner\n')
    const files = new InstructionFiles(home)
    const first = ours(files.find(ws)).map((f) => f.text)
    assert.deepEqual(first, ['global\n', 'outer\n', 'inner\n'])
    const reads = files.reads
    for (let i = 0; i < 5; i++)
      assert.deepEqual(
        ours(files.find(ws)).map((f) => f.text),
        first,
      )
    assert.equal(files.reads, reads, 'an unchanged set is read from the cache')
    // Same size, and the modification time put back: the change time still tells.
    writeFileSync(join(ws, 'AGENTS.md'), 'INNER\n')
    utimesSync(join(ws, 'AGENTS.md'), new Date(0), new Date(0))
    assert.deepEqual(
      ours(files.find(ws)).map((f) => f.text),
      ['global\n', 'outer\n', 'INNER\n'],
    )
    assert.equal(files.reads, reads + 1, 'only the changed file is read again')
  })

  it('lists one file once when two names lead to it', () => {
    const ws = join(root, 'dup/w')
    mkdirSync(ws, { recursive: true })
    writeFileSync(join(root, 'dup/AGENTS.md'), 'shared\n')
    symlinkSync('../AGENTS.md', join(ws, 'AGENTS.md'))
    const found = ours(new InstructionFiles(null).find(ws))
    assert.deepEqual(
      found.map((f) => [f.path, f.text, f.skipped]),
      [
        [join(root, 'dup/AGENTS.md'), 'shared\n', null],
        [join(ws, 'AGENTS.md'), null, 'duplicate'],
      ],
    )
    // The home as workspace: its AGENTS.md is the global file, not listed twice.
    const asHome = new InstructionFiles(join(root, 'dup')).find(join(root, 'dup'))
    assert.deepEqual(
      ours(asHome).map((f) => [f.scope, f.skipped]),
      [
        ['global', null],
        ['workspace', 'duplicate'],
      ],
    )
  })

  it('cuts a long file at a character boundary and marks it', () => {
    const ws = join(root, 'long')
    mkdirSync(ws, { recursive: true })
    // One ASCII byte first, so the 32 KiB cut falls inside a three-byte character.
    writeFileSync(join(ws, 'AGENTS.md'), `x${'€'.repeat(MAX_FILE_BYTES)}`)
    const [f] = ours(new InstructionFiles(null).find(ws))
    assert.equal(f.truncated, true)
    assert.equal(f.bytes, 1 + 3 * MAX_FILE_BYTES)
    // 32767 bytes are whole characters; the 32768th is the first byte of a split one.
    const kept = Math.floor((MAX_FILE_BYTES - 1) / 3)
    assert.equal(f.text?.length, 1 + kept)
    assert.ok(f.text === `x${'€'.repeat(kept)}`)
  })

  it('finds character boundaries and refuses what is not UTF-8 text', () => {
    const bytes = Buffer.from('a€😀', 'utf8') // 1 + 3 + 4 bytes
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5, 6, 7, 8].map((n) => characterBoundary(bytes, n)),
      [0, 1, 1, 1, 4, 4, 4, 4, 8],
    )
    assert.equal(decode(Buffer.from('ok\n'), false), 'ok\n')
    assert.equal(decode(Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0x69]), false), 'hi', 'a BOM is dropped')
    assert.equal(decode(Buffer.from([0x61, 0x00, 0x62]), false), null, 'NUL bytes')
    assert.equal(decode(Buffer.from([0x61, 0xc3]), false), null, 'a split character in a whole file')
    assert.equal(decode(Buffer.from([0x61, 0xc3]), true), 'a', 'a split character at a cut')
  })

  it('a file that is off sends nothing and is not marked cut; the path entry beats the scope entry', () => {
    const file = (path: string, scope: 'global' | 'workspace', truncated = false): FoundFile => ({
      path,
      scope,
      bytes: truncated ? 40_000 : 4,
      text: 'rule',
      truncated,
      skipped: null,
    })
    const files = [file('/h/AGENTS.md', 'global'), file('/w/AGENTS.md', 'workspace', true)]
    const off = compose(files, { '/w/AGENTS.md': false })
    assert.deepEqual(
      off.sources.map((s) => [s.state, s.sent_bytes, s.truncated]),
      [
        ['loaded', 4, false],
        ['off', 0, false],
      ],
    )
    const on = compose(files, { workspace: false, global: false, '/w/AGENTS.md': true })
    assert.deepEqual(
      on.sources.map((s) => [s.state, s.sent_bytes, s.truncated]),
      [
        ['off', 0, false],
        ['loaded', 4, true],
      ],
    )
    assert.equal(compose(files, { global: false, workspace: false }).system, null)
  })
})
