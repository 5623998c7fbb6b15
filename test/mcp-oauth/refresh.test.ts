// A signed-in server's access token, as the daemon's McpAccess hands it to a kernel: the
// stored one while it lasts, refreshed (with the resource indicator) within a minute of its
// expiry or when the server refused it, one refresh for callers that ask together, the
// generation kept across refreshes, and the tokens dropped when the refresh is refused.
// The sign-in runs through a real daemon; McpAccess then runs here over the same home with
// the daemon stopped (only the lock holder writes creds.json).
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { v7 as uuidv7 } from 'uuid'
import { lockedFiles } from '../../src/auth/accounts-store.ts'
import { DaemonMcpAccess } from '../../src/mcp/oauth/access.ts'
import { CredentialLock } from '../../src/settings/lock.ts'
import { daemonWith, echoWith, ended, finishInBrowser, oauthIn, putLogin } from './helpers.ts'
import { type AuthServer, type ProtectedMcp, startAuthServer, startProtectedMcp } from './peers.ts'

describe('MCP access tokens: refresh under the credential lock', () => {
  let mcp: ProtectedMcp
  let as: AuthServer
  let home: string
  let access: DaemonMcpAccess
  const errors: unknown[] = []
  const refreshes = () => as.seen.token.filter((t) => t.grant_type === 'refresh_token')

  before(async () => {
    mcp = await startProtectedMcp()
    // 90 s: a fresh token is handed out as it is, and is "expiring" once the clock is 31 s on.
    as = await startAuthServer({ resource: mcp.url, accessTokenTtl: 90 })
    mcp.issuer = as.issuer
    const d = await daemonWith({ remote: { url: mcp.url } })
    home = d.home
    const id = uuidv7()
    const login = (await putLogin(d, 'mcp:remote', 'browser', id)).json()
    await finishInBrowser(login.url)
    assert.equal((await ended(d, id)).state, 'complete')
    await d.stop()
  })
  after(async () => {
    await as?.close()
    await mcp?.close()
  })

  const accessAt = (now: () => number) =>
    new DaemonMcpAccess({
      files: lockedFiles(home, new CredentialLock()),
      now,
      onError: (e) => errors.push(e),
    })

  it('hands out the stored token while it lasts, and says the sign-in generation', async () => {
    access = accessAt(Date.now)
    const stored = oauthIn(home, 'remote').tokens
    const t = await access.token('remote')
    assert.equal(t?.access_token, stored.access_token)
    assert.equal(t?.expires_at, stored.expires_at)
    assert.equal(access.signedIn('remote'), stored.signed_in_at)
    assert.equal(access.signedIn('other'), null)
    assert.equal(await access.token('other'), null)
    assert.equal(refreshes().length, 0)
  })

  it('refreshes within 60 s of expiry, with the resource; one refresh for callers asking together', async () => {
    const before = oauthIn(home, 'remote').tokens
    access = accessAt(() => Date.now() + 31_000)
    const [a, b, c] = await Promise.all([
      access.token('remote'),
      access.token('remote'),
      access.token('remote'),
    ])
    assert.equal(refreshes().length, 1)
    assert.equal(refreshes()[0].resource, mcp.url)
    assert.notEqual(a?.access_token, before.access_token)
    assert.equal(b?.access_token, a?.access_token)
    assert.equal(c?.access_token, a?.access_token)
    const after = oauthIn(home, 'remote').tokens
    assert.equal(after.access_token, a?.access_token)
    assert.notEqual(after.refresh_token, before.refresh_token, 'the rotated refresh token is kept')
    assert.equal(after.signed_in_at, before.signed_in_at, 'a refresh keeps the generation')
    assert.equal(await echoWith(mcp.url, a?.access_token as string), 'echo: hi')
  })

  it('under the lock the file is read again: a refresh another holder just saved is used as it is', async () => {
    const lock = new CredentialLock()
    const n = refreshes().length
    const expiring = oauthIn(home, 'remote').tokens.expires_at - 30_000
    const two = [0, 1].map(
      () => new DaemonMcpAccess({ files: lockedFiles(home, lock), now: () => expiring, onError: () => {} }),
    )
    const [a, b] = await Promise.all(two.map((x) => x.token('remote')))
    assert.equal(refreshes().length, n + 1, 'the second waited for the lock and found the fresh token')
    assert.equal(a?.access_token, b?.access_token)
  })

  it('a token the server refused is refreshed once; a refusal of an older token answers the newer one', async () => {
    access = accessAt(Date.now)
    const current = oauthIn(home, 'remote').tokens.access_token
    const n = refreshes().length
    const fresh = await access.token('remote', current)
    assert.equal(refreshes().length, n + 1)
    assert.notEqual(fresh?.access_token, current)
    const again = await access.token('remote', current)
    assert.equal(again?.access_token, fresh?.access_token, 'already refreshed: no second refresh')
    assert.equal(refreshes().length, n + 1)
  })

  it('a refused refresh drops the tokens: null, and the server needs a new sign-in', async () => {
    const file = join(home, 'creds.json')
    const creds = JSON.parse(readFileSync(file, 'utf8'))
    const rejected = creds.mcp.remote.oauth.tokens.access_token
    creds.mcp.remote.oauth.tokens.refresh_token = 'not-a-refresh-token'
    writeFileSync(file, JSON.stringify(creds))
    access = accessAt(Date.now)
    assert.equal(await access.token('remote', rejected), null)
    assert.equal(oauthIn(home, 'remote').tokens, undefined)
    assert.ok(oauthIn(home, 'remote').client, 'the registered client stays')
    assert.equal(access.signedIn('remote'), null)
    assert.equal(await access.token('remote'), null)
    assert.deepEqual(errors, [], 'a refusal is no error to log')
  })

  it('an unreachable authorization server keeps the tokens and the old token while it lasts', async () => {
    const file = join(home, 'creds.json')
    const creds = JSON.parse(readFileSync(file, 'utf8'))
    const tokens = {
      access_token: 'still-good',
      token_type: 'Bearer',
      refresh_token: 'kept',
      expires_at: Date.now() + 30_000,
      signed_in_at: new Date().toISOString(),
    }
    creds.mcp.remote.oauth.tokens = tokens
    creds.mcp.remote.oauth.metadata.token_endpoint = 'http://127.0.0.1:9/token'
    writeFileSync(file, JSON.stringify(creds))
    access = accessAt(Date.now)
    assert.equal((await access.token('remote'))?.access_token, 'still-good')
    assert.equal(oauthIn(home, 'remote').tokens.refresh_token, 'kept')
    assert.equal(errors.length, 1)
    assert.doesNotMatch(String(errors[0]), /still-good|kept/)
  })
})
