// The sign-in engine against a real authorization server (oidc-provider on loopback): the
// browser flow, a pasted response, the race between them (one exchange), the timeout, the
// ninth login, a restart, a busy fixed port, a wrong state and a replayed code.
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { v7 as uuidv7 } from 'uuid'
import { etagOf, SignInEngine, toLogin } from '../../src/auth/signin/engine.ts'
import type { SignInPlugin, StoredCredential } from '../../src/providers/shared/sign-in-plugin.ts'
import type { AccountDescriptor } from '../../src/schemas/auth.ts'
import type { HearthError } from '../../src/schemas/problems.ts'
import { type Db, openStore } from '../../src/store/db.ts'
import { until } from '../helpers/daemon.ts'
import { freePort, type OidcPeer, peerPlugin, signInAtProvider, startOidcPeer } from './oidc-peer.ts'

describe('sign-in engine against oidc-provider', () => {
  let peer: OidcPeer
  let port: number
  let plugin: SignInPlugin
  let db: Db
  let saved: StoredCredential[]
  let engine: SignInEngine
  const secretsSeen: string[] = []

  const newEngine = (timeoutMs?: number) =>
    new SignInEngine({
      db,
      plugins: () => new Map([['peer', plugin]]),
      enabled: () => true,
      save: async (p, c) => {
        saved.push(c)
        secretsSeen.push(String(c.access), String(c.refresh))
        const a = p.account(c)
        return {
          ...a,
          provider: p.extension,
          selected: false,
          limited_until: null,
          expires_at: null,
          refreshable: true,
        } as AccountDescriptor
      },
      now: Date.now,
      onError: () => {},
      timeoutMs,
    })
  const create = (flow: 'browser' | 'manual', id = uuidv7()) => {
    const raw = { provider: 'peer', flow, values: {} }
    return engine.create(id, raw, () => raw as never)
  }
  const callback = () => `http://localhost:${port}/auth/callback`

  before(async () => {
    port = await freePort()
    peer = await startOidcPeer([callback()])
    plugin = peerPlugin(peer.issuer, port)
    db = openStore(join(mkdtempSync(join(tmpdir(), 'hearth-signin-')), 'state.db'))
    saved = []
    engine = newEngine()
    engine.start()
  })
  after(async () => {
    engine.stop()
    db.close()
    await peer.close()
  })

  it('browser flow: the redirect reaches the loopback listener and one account is saved', async () => {
    const before = saved.length
    const { status, row } = await create('browser')
    assert.equal(status, 201)
    assert.equal(row.state, 'waiting')
    const redirect = await signInAtProvider(row.url, 'alice', callback())
    const page = await fetch(redirect.replace('localhost', '127.0.0.1'))
    assert.equal(page.status, 200)
    assert.match(await page.text(), /Signed in/)
    const done = engine.get(row.id)
    assert.equal(done.state, 'complete')
    assert.equal(saved.length, before + 1)
    assert.equal(toLogin(done).accounts[0].id, 'peer-alice')
    secretsSeen.push(new URL(redirect).searchParams.get('code') as string)
  })

  it('a repeat PUT returns the same login and starts nothing; another intent is 409', async () => {
    const id = uuidv7()
    const first = await create('manual', id)
    const again = await create('manual', id)
    assert.equal(again.status, 200)
    assert.equal(again.row.url, first.row.url)
    await assert.rejects(create('browser', id), (e: HearthError) => e.code === 'login_conflict')
    engine.cancel(id)
    engine.cancel(id) // idempotent
    assert.equal(engine.get(id).state, 'cancelled')
  })

  it('manual flow: a pasted callback URL, code#state or query string completes it', async () => {
    for (const shape of ['url', 'hash', 'query'] as const) {
      const { row } = await create('manual')
      const redirect = new URL(await signInAtProvider(row.url, `bob-${shape}`, callback()))
      const code = redirect.searchParams.get('code') as string
      const state = redirect.searchParams.get('state') as string
      secretsSeen.push(code)
      const response =
        shape === 'url' ? redirect.href : shape === 'hash' ? `${code}#${state}` : redirect.search.slice(1)
      const done = await engine.answer(row.id, etagOf(engine.get(row.id)), response)
      assert.equal(done.state, 'complete', shape)
    }
  })

  it('the race: callback and paste arrive together, exactly one exchange happens', async () => {
    const calls = peer.tokenCalls.authorization_code
    const before = saved.length
    const { row } = await create('browser')
    const redirect = await signInAtProvider(row.url, 'carol', callback())
    const [page, pasted] = await Promise.allSettled([
      fetch(redirect.replace('localhost', '127.0.0.1')),
      engine.answer(row.id, etagOf(row), redirect),
    ])
    assert.equal(peer.tokenCalls.authorization_code, calls + 1, 'one code exchange')
    assert.equal(saved.length, before + 1, 'one account saved')
    assert.equal(engine.get(row.id).state, 'complete')
    // The loser either saw the login already exchanging or was told it was handled.
    const losers = [page, pasted].filter(
      (r) =>
        r.status === 'rejected' ||
        (r.status === 'fulfilled' && r.value instanceof Response && r.value.status === 400),
    )
    assert.ok(losers.length <= 1)
  })

  it('a wrong state is refused and the login keeps waiting; a replayed code fails the login', async () => {
    const { row } = await create('browser')
    const wrong = await fetch(`http://127.0.0.1:${port}/auth/callback?code=x&state=not-ours`)
    assert.equal(wrong.status, 400)
    await assert.rejects(
      engine.answer(row.id, etagOf(row), 'somecode#not-the-state'),
      (e: HearthError) => e.code === 'state_mismatch',
    )
    assert.equal(engine.get(row.id).state, 'waiting')
    await assert.rejects(
      engine.answer(row.id, '"0"', 'code'),
      (e: HearthError) => e.code === 'precondition_failed',
    )
    // A code that was already exchanged (by the browser-flow test's login).
    const redirect = await signInAtProvider(row.url, 'dave', callback())
    const code = new URL(redirect).searchParams.get('code') as string
    await fetch(redirect.replace('localhost', '127.0.0.1'))
    assert.equal(engine.get(row.id).state, 'complete')
    const { row: second } = await create('manual')
    const replayed = await engine.answer(second.id, etagOf(second), code)
    assert.equal(replayed.state, 'failed')
    assert.equal(replayed.failure, 'invalid_grant')
  })

  it('at most eight unfinished logins: the ninth is too_many_logins', async () => {
    const ids: string[] = []
    for (let i = 0; i < 8; i++) ids.push((await create('manual')).row.id)
    await assert.rejects(create('manual'), (e: HearthError) => e.code === 'too_many_logins')
    for (const id of ids) engine.cancel(id)
    assert.equal((await create('manual')).status, 201)
  })

  it('a fixed port that is busy fails the login with callback_port_busy', async () => {
    const busyPort = await freePort()
    const blocker = createServer()
    await new Promise<void>((r) => blocker.listen(busyPort, '127.0.0.1', r))
    const original = plugin
    plugin = peerPlugin(peer.issuer, busyPort)
    try {
      const { row } = await create('browser')
      assert.equal(row.state, 'failed')
      assert.equal(row.failure, 'callback_port_busy')
    } finally {
      plugin = original
      blocker.close()
    }
  })

  it('a port that is not fixed moves to an ephemeral one when busy', async () => {
    const busyPort = await freePort()
    const blocker = createServer()
    await new Promise<void>((r) => blocker.listen(busyPort, '127.0.0.1', r))
    const original = plugin
    plugin = peerPlugin(peer.issuer, busyPort, false)
    try {
      const { row } = await create('browser')
      assert.equal(row.state, 'waiting')
      const redirect = new URL(new URL(row.url).searchParams.get('redirect_uri') as string)
      assert.notEqual(Number(redirect.port), busyPort)
      const answer = await fetch(`http://127.0.0.1:${redirect.port}/auth/callback?state=unknown`)
      assert.equal(answer.status, 400, 'the listener runs on the new port')
      engine.cancel(row.id)
      await assert.rejects(
        fetch(`http://127.0.0.1:${redirect.port}/auth/callback?state=x`),
        'closed on cancel',
      )
    } finally {
      plugin = original
      blocker.close()
    }
  })

  it('terminal records are kept fifteen minutes, then gone (410)', async () => {
    const { row } = await create('manual')
    engine.cancel(row.id)
    const later = new SignInEngine({
      db,
      plugins: () => new Map([['peer', plugin]]),
      enabled: () => true,
      save: async () => ({}) as never,
      now: () => Date.now() + 16 * 60_000,
      onError: () => {},
    })
    assert.throws(
      () => later.get(row.id),
      (e: HearthError) => e.code === 'login_expired',
    )
    assert.throws(
      () => later.get(row.id),
      (e: HearthError) => e.code === 'login_expired',
      'pruned: still 410',
    )
  })

  it('times out: the login fails with timed_out and its listener closes', async () => {
    const short = newEngine(150)
    const raw = { provider: 'peer', flow: 'browser', values: {} }
    const { row } = await short.create(uuidv7(), raw, () => raw as never)
    const ended = await until('the login ended', () => {
      const login = short.get(row.id)
      return login.state !== 'waiting' && login
    })
    assert.equal(ended.state, 'failed')
    assert.equal(ended.failure, 'timed_out')
    await assert.rejects(fetch(`http://127.0.0.1:${port}/auth/callback?state=x`), 'the listener is closed')
    short.stop()
  })

  it('a restart fails unfinished logins with daemon_restarted and keeps their identity', async () => {
    const { row } = await create('manual')
    engine.stop()
    engine = newEngine()
    engine.start()
    const after = engine.get(row.id)
    assert.equal(after.state, 'failed')
    assert.equal(after.failure, 'daemon_restarted')
    assert.equal(after.provider, 'peer')
    const raw = { provider: 'peer', flow: 'manual', values: {} }
    assert.equal(
      (await engine.create(row.id, raw, () => raw as never)).status,
      200,
      'a new flow needs a new id',
    )
  })

  it('no code, token, verifier or state is in any login the engine shows', () => {
    const rows = db.prepare('SELECT * FROM logins').all() as Parameters<typeof toLogin>[0][]
    const shown = JSON.stringify(rows.map(toLogin))
    for (const s of secretsSeen.filter((x) => x && x !== 'undefined')) assert.equal(shown.includes(s), false)
    // The state is in the authorization URL (the browser needs it), never anywhere else.
    for (const r of rows) {
      const state = new URL(r.url).searchParams.get('state') as string
      assert.equal(JSON.stringify({ ...toLogin(r), url: '' }).includes(state), false)
    }
  })
})
