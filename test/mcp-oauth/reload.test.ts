// A sign-in writes creds.json `mcp.<server>.oauth` through the credential files, not a
// settings PATCH: sessions that use the server are not marked `needs_reload` by it (a new
// sign-in reaches them at their next run's load), while a PATCH of the server's sign-in
// settings is a settings change like any other and does mark them.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { v7 as uuidv7 } from 'uuid'
import { change } from '../settings/helpers.ts'
import { type AgentSetup, getSession, newSession, runMessage, startAgent } from '../tools/agent-helpers.ts'
import { ended, finishInBrowser, oauthIn, putLogin } from './helpers.ts'
import { type AuthServer, type ProtectedMcp, startAuthServer, startProtectedMcp } from './peers.ts'

describe('MCP sign-in and session reloads', () => {
  let s: AgentSetup
  let mcp: ProtectedMcp
  let as: AuthServer

  before(async () => {
    mcp = await startProtectedMcp()
    as = await startAuthServer({ resource: mcp.url })
    mcp.issuer = as.issuer
    s = await startAgent({ protocol: 'chat_completions' })
    await change(s.d, 'mcp', { servers: { remote: { url: mcp.url, startup_timeout_ms: 5000 } } })
  })
  after(async () => {
    await s?.d.stop()
    await s?.upstream.close()
    await as?.close()
    await mcp?.close()
  })

  it('a sign-in marks no session for reload; a PATCH of the sign-in settings does', async () => {
    const sid = await newSession(s)
    await runMessage(s, sid, 'hello')
    assert.equal((await getSession(s.d, sid)).composition.needs_reload, false)
    const id = uuidv7()
    const login = (await putLogin(s.d, 'mcp:remote', 'browser', id)).json()
    await finishInBrowser(login.url)
    assert.equal((await ended(s.d, id)).state, 'complete')
    assert.ok(oauthIn(s.home, 'remote').tokens)
    assert.equal(
      (await getSession(s.d, sid)).composition.needs_reload,
      false,
      'a sign-in is no settings change',
    )
    await change(s.d, 'mcp', { servers: { remote: { oauth: { scopes: ['mcp:tools'] } } } })
    assert.equal((await getSession(s.d, sid)).composition.needs_reload, true, 'a settings PATCH is')
  })
})
