// No user string makes a session query fail: random names and searches built from the
// pieces that have meaning to SQL or to the full-text query syntax (NUL, quotes, `*`,
// `NEAR`, `^`, parentheses, lone surrogates…) against a real daemon, both while the
// sessions wait for the search index and once it has caught up. A search that is a
// substring of a name finds that session; nothing answers 5xx. Seeded, so a failure repeats.
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import Database from 'better-sqlite3'
import { v7 as uuidv7 } from 'uuid'
import { type RawResponse, startDaemon, type TestDaemon } from '../helpers/daemon.ts'

const SEED = 0x5eed_2026
const NAMES = 40
const SEARCHES = 150

const PIECES = [
  '\u0000',
  '"',
  '""',
  "'",
  '*',
  '^',
  'NEAR',
  'NEAR(',
  ' AND ',
  ' OR ',
  'NOT',
  '(',
  ')',
  ':',
  '-',
  '+',
  '%',
  '_',
  '\\',
  '{',
  '}',
  ';',
  '--',
  '/*',
  '\uD800', // lone high surrogate
  '\uDFFF', // lone low surrogate
  '😀',
  'é',
  'É',
  'ß',
  ' ',
  '\n',
  '\t',
  'abc',
  'def',
  'x',
  'Q',
  '7',
]

/** mulberry32: a small seeded PRNG, so every run draws the same strings. */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function randomText(next: () => number, maxPieces: number): string {
  const n = 1 + Math.floor(next() * maxPieces)
  let s = ''
  for (let i = 0; i < n; i++) s += PIECES[Math.floor(next() * PIECES.length)]
  return s
}

/**
 * Percent-encodes a string as a client that sends it byte for byte would: UTF-8, and a lone
 * surrogate as the three bytes of its code unit (what encodeURIComponent refuses).
 */
function percentEncode(text: string): string {
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && /[\uDC00-\uDFFF]/.test(text[i + 1])
    if (pair) {
      out += encodeURIComponent(text.slice(i, i + 2))
      i++
    } else if (c >= 0xd800 && c <= 0xdfff) {
      out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('')
    } else {
      out += encodeURIComponent(text[i])
    }
  }
  return out
}

/** A string without lone surrogates (those cannot be stored as they are). */
const wellFormed = (s: string) => s.isWellFormed()

function assertNo5xx(res: RawResponse, what: string): void {
  assert.ok(res.status < 500, `${what}: ${res.status} ${res.text()}`)
  if (res.status >= 400) assert.match(String(res.headers['content-type']), /^application\/problem\+json/)
}

describe('session queries with arbitrary strings', () => {
  let d: TestDaemon | undefined
  after(async () => {
    await d?.stop()
  })

  it('never answer 5xx and find every name by any of its substrings', async () => {
    const next = prng(SEED)
    // The indexer never runs in the first daemon: every session is searched by the scan.
    d = await startDaemon({ env: { HEARTH_SEARCH_QUIET_MS: '600000' } })
    const home = d.home
    const ws = mkdtempSync(join(home, 'ws-'))
    const named: { id: string; name: string }[] = []
    for (let i = 0; i < NAMES; i++) {
      const name = randomText(next, 8)
      const id = uuidv7()
      const res = await d.request({
        method: 'PUT',
        path: `/sessions/${id}`,
        headers: { 'content-type': 'application/json', 'if-none-match': '*' },
        body: JSON.stringify({ kind: 'new', workspace: ws, name }),
      })
      assertNo5xx(res, `create named ${JSON.stringify(name)}`)
      if (res.status === 201 && wellFormed(name)) named.push({ id, name: res.json().name })
    }
    assert.ok(named.length > NAMES / 2, 'most names were accepted')

    const searches: { text: string; expect?: string }[] = []
    for (let i = 0; i < SEARCHES; i++) {
      if (i % 3 === 0) {
        // A substring of a stored name: that session must be among the matches.
        const { id, name } = named[Math.floor(next() * named.length)]
        const chars = [...name]
        const from = Math.floor(next() * chars.length)
        const to = Math.min(chars.length, from + 1 + Math.floor(next() * 6))
        searches.push({ text: chars.slice(from, to).join(''), expect: id })
      } else {
        searches.push({ text: randomText(next, 6) })
      }
    }

    const run = async (daemon: TestDaemon, phase: string) => {
      for (const { text, expect } of searches) {
        const what = `${phase}: search ${JSON.stringify(text)}`
        const res = await daemon.request({ path: `/sessions?limit=200&search=${percentEncode(text)}` })
        assertNo5xx(res, what)
        if (expect && text.length <= 256) {
          assert.equal(res.status, 200, `${what}: ${res.text()}`)
          assert.ok(
            res.json().items.some((s: { id: string }) => s.id === expect),
            `${what} finds the session whose name holds it`,
          )
        }
        const filtered = await daemon.request({
          path: `/sessions?scope=all&workspace=${percentEncode(text)}&search=${percentEncode(text)}`,
        })
        assertNo5xx(filtered, `${phase}: workspace filter ${JSON.stringify(text)}`)
      }
    }
    await run(d, 'not indexed')

    // The second daemon indexes every session before the searches run.
    await d.stop()
    d = await startDaemon({ home, env: { HEARTH_SEARCH_QUIET_MS: '1' } })
    const pending = () => {
      const db = new Database(join(home, 'state.db'), { readonly: true })
      try {
        return db.prepare('SELECT COUNT(*) FROM search_pending').pluck().get() as number
      } finally {
        db.close()
      }
    }
    for (let i = 0; i < 250 && pending() > 0; i++) await sleep(20)
    assert.equal(pending(), 0, 'the indexer caught up')
    await run(d, 'indexed')

    // Renames with the same strings go through the same statements.
    for (const { text } of searches.slice(0, 30)) {
      const id = named[0].id
      const etag = (await d.request({ path: `/sessions/${id}?view=configuration` })).json().etag
      const res = await d.request({
        method: 'PATCH',
        path: `/sessions/${id}?view=configuration`,
        headers: { 'content-type': 'application/merge-patch+json', 'if-match': etag },
        body: JSON.stringify({ name: text }),
      })
      assertNo5xx(res, `rename to ${JSON.stringify(text)}`)
    }
  })
})
