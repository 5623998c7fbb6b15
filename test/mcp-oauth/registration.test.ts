// How hearth is known to an MCP server's authorization server, in the order MCP
// authorization gives: a client id registered beforehand (settings, with its secret in
// creds.json), a client id metadata document (which the authorization server fetches),
// dynamic registration (signin.test.ts), else a failed login saying what to set. And the
// discovery's refusals: protected resource metadata naming another resource.
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { v7 as uuidv7 } from 'uuid'
import type { TestDaemon } from '../helpers/daemon.ts'
import {
  assertNoSecretsOutsideCreds,
  daemonWith,
  echoWith,
  ended,
  finishInBrowser,
  oauthIn,
  putLogin,
} from './helpers.ts'
import { type AuthServer, type ProtectedMcp, startAuthServer, startProtectedMcp } from './peers.ts'

const CLIENT_SECRET = 'pre-registered-secret-value'

describe('MCP sign-in: client registration in the specification order, discovery refusals', () => {
  const peers: { mcp: ProtectedMcp; as: AuthServer }[] = []
  const pair = async (
    as: Omit<Parameters<typeof startAuthServer>[0], 'resource'>,
    mcp: Parameters<typeof startProtectedMcp>[0] = {},
  ) => {
    const m = await startProtectedMcp(mcp)
    const a = await startAuthServer({ ...as, resource: m.url })
    m.issuer = a.issuer
    peers.push({ mcp: m, as: a })
    return { mcp: m, as: a }
  }
  let pre: { mcp: ProtectedMcp; as: AuthServer }
  let doc: { mcp: ProtectedMcp; as: AuthServer }
  let none: { mcp: ProtectedMcp; as: AuthServer }
  let wrong: { mcp: ProtectedMcp; as: AuthServer }
  let documentUrl: string
  const documents = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(
      JSON.stringify({
        client_id: documentUrl,
        client_name: 'hearth',
        redirect_uris: ['http://127.0.0.1/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    )
  })
  let d: TestDaemon

  const signIn = async (server: string) => {
    const id = uuidv7()
    const created = await putLogin(d, `mcp:${server}`, 'browser', id)
    assert.equal(created.status, 201, created.text())
    const login = created.json()
    if (login.state === 'waiting') await finishInBrowser(login.url)
    return ended(d, id)
  }

  before(async () => {
    await new Promise<void>((r) => documents.listen(0, '127.0.0.1', r))
    documentUrl = `http://127.0.0.1:${(documents.address() as AddressInfo).port}/hearth-client.json`
    // Registration stays on where a better way exists: the order, not the lack, picks it.
    pre = await pair({ client: { client_id: 'hearth-pre', client_secret: CLIENT_SECRET } }, { noHint: true })
    doc = await pair({ metadataDocuments: true })
    none = await pair({ registration: false })
    wrong = await pair({}, { resource: (url) => url.replace('/mcp', '/other') })
    d = await daemonWith(
      {
        pre: { url: pre.mcp.url, oauth: { client_id: 'hearth-pre' } },
        doc: { url: doc.mcp.url },
        none: { url: none.mcp.url },
        wrong: { url: wrong.mcp.url },
      },
      { pre: { client_secret: CLIENT_SECRET } },
    )
  })
  after(async () => {
    await d?.stop()
    for (const p of peers) await Promise.all([p.as.close(), p.mcp.close()])
    documents.close()
  })

  it('a client id from settings is used first (with its secret), found without the 401 hint', async () => {
    const login = await signIn('pre')
    assert.equal(login.state, 'complete', JSON.stringify(login))
    assert.equal(pre.as.seen.registrations, 0)
    assert.deepEqual(
      pre.as.seen.token.map((t) => [t.grant_type, t.client_id, t.resource]),
      [['authorization_code', 'hearth-pre', pre.mcp.url]],
    )
    const stored = oauthIn(d.home, 'pre')
    assert.deepEqual([stored.client.registration, stored.client.client_id], ['settings', 'hearth-pre'])
    assert.equal(await echoWith(pre.mcp.url, stored.tokens.access_token), 'echo: hi')
    const read = await d.request({ path: '/settings?group=mcp' })
    const oauth = read.json().settings.servers.pre.oauth
    assert.deepEqual(
      [oauth.client_id, oauth.client_secret, oauth.signed_in],
      ['hearth-pre', { saved: true }, true],
    )
    assert.ok(!read.text().includes(CLIENT_SECRET))
    assertNoSecretsOutsideCreds(d.home, [
      CLIENT_SECRET,
      stored.tokens.access_token,
      stored.tokens.refresh_token,
    ])
  })

  it('a client id metadata document is used before dynamic registration when the server takes those', async () => {
    const etag = (await d.request({ path: '/settings?group=mcp' })).headers.etag as string
    const patched = await d.request({
      method: 'PATCH',
      path: '/settings?group=mcp',
      headers: { 'content-type': 'application/merge-patch+json', 'if-match': etag },
      body: JSON.stringify({ servers: { doc: { oauth: { client_metadata_url: documentUrl } } } }),
    })
    assert.equal(patched.status, 200, patched.text())
    const login = await signIn('doc')
    assert.equal(login.state, 'complete', JSON.stringify(login))
    assert.ok(doc.as.seen.documents.includes(documentUrl), 'the authorization server fetched the document')
    assert.equal(doc.as.seen.registrations, 0)
    const stored = oauthIn(d.home, 'doc')
    assert.deepEqual(
      [stored.client.registration, stored.client.client_id],
      ['metadata_document', documentUrl],
    )
    assert.equal(await echoWith(doc.mcp.url, stored.tokens.access_token), 'echo: hi')
  })

  it('no client id and no registration: the login fails saying which setting to give', async () => {
    const login = await signIn('none')
    assert.deepEqual([login.state, login.failure], ['failed', 'client_id_required'])
    assert.match(login.instructions, /mcp\.servers\.none\.oauth\.client_id/)
    assert.equal(none.as.seen.authorize.length, 0)
  })

  it('protected resource metadata naming another resource is refused before any authorization', async () => {
    const login = await signIn('wrong')
    assert.deepEqual([login.state, login.failure], ['failed', 'resource_mismatch'])
    assert.equal(wrong.as.seen.registrations, 0)
    assert.equal(wrong.as.seen.authorize.length, 0)
    assert.equal(oauthIn(d.home, 'wrong'), undefined)
  })
  it('oauth: null removes the sign-in settings and the client secret; a removed server loses its sign-in', async () => {
    const patch = async (servers: unknown) => {
      const etag = (await d.request({ path: '/settings?group=mcp' })).headers.etag as string
      const r = await d.request({
        method: 'PATCH',
        path: '/settings?group=mcp',
        headers: { 'content-type': 'application/merge-patch+json', 'if-match': etag },
        body: JSON.stringify({ servers }),
      })
      assert.equal(r.status, 200, r.text())
      return r.json().settings.servers
    }
    const cleared = (await patch({ pre: { oauth: null } })).pre.oauth
    assert.deepEqual([cleared.client_id, cleared.client_secret, cleared.signed_in], [null, null, true])
    assert.ok(oauthIn(d.home, 'pre').tokens, 'the sign-in itself stays (logout revokes it)')
    await patch({ pre: null })
    assert.equal(oauthIn(d.home, 'pre'), undefined)
  })
})
