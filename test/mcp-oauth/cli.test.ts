// `hearth mcp login NAME` (the manual flow: the URL printed, the address the browser ends
// on pasted), `hearth mcp list` with the sign-in state, `hearth mcp logout NAME`, and
// `hearth mcp add` with the sign-in options, against the real peers.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { signInAtProvider } from '../auth/oidc-peer.ts'
import { runCli, startCli, type TestDaemon, until } from '../helpers/daemon.ts'
import { daemonWith, oauthIn } from './helpers.ts'
import { type AuthServer, type ProtectedMcp, startAuthServer, startProtectedMcp } from './peers.ts'

describe('hearth mcp login / list / logout', () => {
  let mcp: ProtectedMcp
  let as: AuthServer
  let d: TestDaemon
  const cli = (...args: string[]) => runCli(['mcp', ...args, '--home', d.home])

  before(async () => {
    mcp = await startProtectedMcp()
    as = await startAuthServer({ resource: mcp.url })
    mcp.issuer = as.issuer
    d = await daemonWith({ remote: { url: mcp.url } })
  })
  after(async () => {
    await d?.stop()
    await as?.close()
    await mcp?.close()
  })

  it('lists a remote server as not signed in', async () => {
    const list = await cli('list')
    assert.equal(list.code, 0, list.stderr)
    assert.match(list.stdout, /remote\s+http\s+\S+\s+not signed in/)
  })

  it('login --manual prints the URL and takes the pasted address', async () => {
    const login = startCli(['mcp', 'login', 'remote', '--manual', '--home', d.home])
    const url = await until(
      'the URL',
      () => /^\s+(http\S+\/auth\?\S+)$/m.exec(login.stdout())?.[1],
      20_000,
      20,
    )
    const redirectUri = new URL(url).searchParams.get('redirect_uri') as string
    const redirect = await signInAtProvider(url, 'alice', redirectUri)
    login.child.stdin?.write(`${redirect}\n`)
    const done = await login.done
    assert.equal(done.code, 0, done.stderr + done.stdout)
    assert.match(done.stdout, /Signed in to mcp:remote/)
    assert.ok(oauthIn(d.home, 'remote').tokens.access_token)
    const list = await cli('list')
    assert.match(list.stdout, /signed in \(expires \d{4}-/)
    assert.ok(!list.stdout.includes(oauthIn(d.home, 'remote').tokens.access_token))
  })

  it('logout revokes and deletes; a second logout says it is not signed in', async () => {
    const out = await cli('logout', 'remote')
    assert.equal(out.code, 0, out.stderr)
    assert.match(out.stdout, /signed out of remote/)
    assert.ok(as.seen.revocations >= 1)
    assert.equal(oauthIn(d.home, 'remote').tokens, undefined)
    const again = await cli('logout', 'remote')
    assert.notEqual(again.code, 0)
    assert.match(again.stderr, /remote is not signed in/)
    assert.match((await cli('list')).stdout, /not signed in/)
  })

  it('add takes the sign-in options; the client secret goes to creds.json from standard input', async () => {
    const add = await runCli(
      [
        'mcp',
        'add',
        'other',
        '--url',
        'https://mcp.example.test/mcp',
        '--client-id',
        'hearth-app',
        '--client-secret-stdin',
        '--scope',
        'read',
        '--scope',
        'write',
        '--callback-port',
        '47999',
        '--home',
        d.home,
      ],
      {},
      { stdin: 'the-client-secret\n' },
    )
    assert.equal(add.code, 0, add.stderr)
    const read = (await d.request({ path: '/settings?group=mcp' })).json().settings.servers.other.oauth
    assert.deepEqual(
      [read.client_id, read.scopes, read.callback_port, read.client_secret, read.signed_in],
      ['hearth-app', ['read', 'write'], 47999, { saved: true }, false],
    )
    const local = await runCli(['mcp', 'add', 'loc', '--client-id', 'x', '--home', d.home, '--', 'true'])
    assert.notEqual(local.code, 0)
  })
})
