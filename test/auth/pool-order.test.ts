// Pool order: FNV-1a vectors, the ordering table, binding, and stickiness.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { AccountError } from '../../src/auth/accounts.ts'
import { fnv1a32 } from '../../src/auth/fnv.ts'
import { orderPool } from '../../src/auth/pool.ts'
import type { StoredCredential } from '../../src/providers/shared/sign-in-plugin.ts'

describe('fnv1a32', () => {
  it('matches the published 32-bit FNV-1a vectors', () => {
    assert.equal(fnv1a32(''), 0x811c9dc5)
    assert.equal(fnv1a32('a'), 0xe40c292c)
    assert.equal(fnv1a32('foobar'), 0xbf9cf968)
  })

  it('hashes the UTF-8 bytes, unsigned', () => {
    assert.equal(fnv1a32('sess-ü'), 0x83b29455) // ü is two bytes
    for (const s of ['', 'a', 'foobar', 'sess-ü', 'x'.repeat(1000)]) {
      const h = fnv1a32(s)
      assert.ok(Number.isInteger(h) && h >= 0 && h <= 0xffffffff)
    }
  })
})

const NOW = 1_700_000_000_000
const acct = (id: string, extra: StoredCredential = {}): StoredCredential => ({
  id,
  access: `at-${id}`,
  ...extra,
})
const idOf = (c: StoredCredential) => String(c.id)
const ids = (list: StoredCredential[]) => list.map(idOf)

// b is selected; h is selected but limited (so it goes with the limited ones); i's limit
// has passed (usable); d, e, g, h are limited, e and g with the same reset time.
const POOL = [
  acct('a'),
  acct('b', { selected: true }),
  acct('c'),
  acct('d', { limitedUntil: NOW + 2000 }),
  acct('e', { limitedUntil: NOW + 1000 }),
  acct('f'),
  acct('g', { limitedUntil: NOW + 1000 }),
  acct('h', { selected: true, limitedUntil: NOW + 500 }),
  acct('i', { limitedUntil: NOW - 1 }),
]
const LIMITED = ['h', 'e', 'g', 'd']

describe('orderPool', () => {
  // FNV-1a mod 4 (the usable, unselected a, c, f, i): s-1 → 0, s-2 → 1, s-3 → 2, s-4 → 3.
  const table: { name: string; sessionId: string; accounts?: StoredCredential[]; want: string[] }[] = [
    { name: 'hashed start 0', sessionId: 's-1', want: ['b', 'a', 'c', 'f', 'i', ...LIMITED] },
    { name: 'hashed start 1', sessionId: 's-2', want: ['b', 'c', 'f', 'i', 'a', ...LIMITED] },
    { name: 'hashed start 2 wraps', sessionId: 's-3', want: ['b', 'f', 'i', 'a', 'c', ...LIMITED] },
    { name: 'hashed start 3 wraps', sessionId: 's-4', want: ['b', 'i', 'a', 'c', 'f', ...LIMITED] },
    {
      name: 'several selected keep input order',
      sessionId: 's-1',
      accounts: [acct('x'), acct('y', { selected: true }), acct('z', { selected: true })],
      want: ['y', 'z', 'x'],
    },
    {
      name: 'all limited: by reset time, ties in input order',
      sessionId: 's-1',
      accounts: [
        acct('p', { limitedUntil: NOW + 30 }),
        acct('q', { limitedUntil: NOW + 10 }),
        acct('r', { limitedUntil: NOW + 30 }),
        acct('s', { limitedUntil: NOW + 10 }),
      ],
      want: ['q', 's', 'p', 'r'],
    },
    { name: 'one account', sessionId: 's-3', accounts: [acct('only')], want: ['only'] },
    { name: 'empty pool', sessionId: 's-3', accounts: [], want: [] },
  ]
  for (const t of table) {
    it(t.name, () => {
      assert.deepEqual(ids(orderPool(t.accounts ?? POOL, { sessionId: t.sessionId, now: NOW, idOf })), t.want)
    })
  }

  it('without a session id hashes the empty string', () => {
    // FNV-1a('') mod 4 = 1
    assert.deepEqual(ids(orderPool(POOL, { now: NOW, idOf })), ['b', 'c', 'f', 'i', 'a', ...LIMITED])
  })

  it('a limit that has passed counts as usable; one at exactly now too', () => {
    const pool = [acct('p', { limitedUntil: NOW }), acct('q', { limitedUntil: NOW + 1 })]
    assert.deepEqual(ids(orderPool(pool, { sessionId: 's-1', now: NOW, idOf })), ['p', 'q'])
  })

  it('with a meter, that meter’s mark counts; limitedUntil only when there is no limitedMeters', () => {
    const pool = [
      acct('p', { limitedMeters: { claude: NOW + 100 } }),
      acct('q', { limitedUntil: NOW + 50 }), // legacy account-wide mark, no limitedMeters
      acct('r', { limitedMeters: { gemini: NOW + 100 } }),
      acct('s', { limitedMeters: {}, limitedUntil: NOW + 10 }), // has meters: the legacy mark is ignored
    ]
    const order = (meter?: string) => ids(orderPool(pool, { sessionId: 's-1', now: NOW, idOf, meter }))
    // FNV-1a('s-1') mod 2 = 0
    assert.deepEqual(order('gemini'), ['p', 's', 'q', 'r'])
    assert.deepEqual(order('claude'), ['r', 's', 'q', 'p'])
    // without a meter: only the account-wide limitedUntil
    assert.deepEqual(order(), ['p', 'r', 's', 'q'])
  })

  it('a bound account_id is exactly that account, even when limited or unselected', () => {
    assert.deepEqual(ids(orderPool(POOL, { sessionId: 's-1', now: NOW, idOf, accountId: 'd' })), ['d'])
    assert.deepEqual(ids(orderPool(POOL, { sessionId: 's-1', now: NOW, idOf, accountId: 'a' })), ['a'])
    // null means rotation
    assert.deepEqual(ids(orderPool(POOL, { sessionId: 's-1', now: NOW, idOf, accountId: null }))[0], 'b')
  })

  it('an unknown bound id is account_not_found, ending in run /login', () => {
    assert.throws(
      () => orderPool(POOL, { sessionId: 's-1', now: NOW, idOf, accountId: 'nope' }),
      (err: unknown) =>
        err instanceof AccountError &&
        err.code === 'account_not_found' &&
        err.message.includes('nope') &&
        err.message.endsWith('run /login'),
    )
    assert.throws(() => orderPool([], { now: NOW, idOf, accountId: 'nope' }), { code: 'account_not_found' })
  })

  it('is pure: the input is not reordered or changed', () => {
    const before = JSON.stringify(POOL)
    orderPool(POOL, { sessionId: 's-3', now: NOW, idOf })
    assert.equal(JSON.stringify(POOL), before)
  })
})

describe('stickiness', () => {
  const pool = ['a', 'b', 'c', 'd', 'e'].map((id) => acct(id))
  const first = (sessionId: string, list = pool) => idOf(orderPool(list, { sessionId, now: NOW, idOf })[0])

  it('the same session id keeps its account while the pool is unchanged', () => {
    for (let i = 0; i < 200; i++) {
      const sid = `0196d1c2-7a4b-7c3d-8e9f-${String(i).padStart(12, '0')}`
      const got = first(sid)
      for (let k = 0; k < 5; k++) assert.equal(first(sid), got)
      // a fresh copy of the same pool (a re-read of creds.json) gives the same answer
      assert.equal(first(sid, structuredClone(pool)), got)
    }
  })

  it('different session ids spread over the pool', () => {
    const counts = new Map<string, number>()
    for (let i = 0; i < 1000; i++) {
      const id = first(`session-${i}`)
      counts.set(id, (counts.get(id) ?? 0) + 1)
    }
    assert.equal(counts.size, 5)
    for (const [, n] of counts) assert.ok(n > 120 && n < 280, `uneven spread: ${[...counts]}`)
  })

  it('a session whose account becomes limited moves on, and comes back when the limit passes', () => {
    const sid = 's-2' // FNV-1a mod 5 picks one account; find it, limit it
    const home = first(sid)
    const limited = pool.map((c) => (idOf(c) === home ? { ...c, limitedUntil: NOW + 60_000 } : c))
    const moved = orderPool(limited, { sessionId: sid, now: NOW, idOf })
    assert.notEqual(idOf(moved[0]), home)
    assert.equal(idOf(moved.at(-1)!), home)
    assert.equal(idOf(orderPool(limited, { sessionId: sid, now: NOW + 60_001, idOf })[0]), home)
  })
})
