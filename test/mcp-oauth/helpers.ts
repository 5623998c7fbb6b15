// What the MCP sign-in tests share: a daemon whose settings name the protected server, the
// login routes, the "browser" that signs in at the authorization server, and a check that
// no secret reached any file of the home but creds.json.
import assert from 'node:assert/strict'
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { v7 as uuidv7 } from 'uuid'
import { signInAtProvider } from '../auth/oidc-peer.ts'
import { startDaemon, type TestDaemon, tempHome, until } from '../helpers/daemon.ts'

export async function daemonWith(servers: Record<string, unknown>, creds: Record<string, unknown> = {}) {
  const home = tempHome('hearth-mcp-oauth-')
  mkdirSync(home, { recursive: true })
  writeFileSync(join(home, 'config.json'), JSON.stringify({ mcp: { servers } }))
  writeFileSync(join(home, 'creds.json'), JSON.stringify({ accounts: {}, providers: {}, mcp: creds }), {
    mode: 0o600,
  })
  return startDaemon({ home })
}

export const putLogin = (d: TestDaemon, provider: string, flow: 'browser' | 'manual', id = uuidv7()) =>
  d.request({
    method: 'PUT',
    path: `/auth/logins/${id}`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ provider, flow, values: {} }),
  })

export const getLogin = async (d: TestDaemon, id: string) =>
  (await d.request({ path: `/auth/logins/${id}` })).json()

/** Waits for the login to end; returns it. */
export const ended = (d: TestDaemon, id: string) =>
  until(
    `login ${id} to end`,
    async () => {
      const l = await getLogin(d, id)
      return ['complete', 'failed', 'cancelled'].includes(l.state) ? l : undefined
    },
    30_000,
    20,
  ).then((p) => p)

/** Polls an async probe (until() takes a synchronous one). */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const v = await probe()
    if (v !== undefined) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** The browser's part of a browser login: sign in, then follow the redirect to the daemon. */
export async function finishInBrowser(loginUrl: string, user = 'alice'): Promise<Response> {
  const redirect = await signInAtProvider(loginUrl, user, redirectOf(loginUrl))
  return fetch(redirect)
}

export const redirectOf = (loginUrl: string) => new URL(loginUrl).searchParams.get('redirect_uri') as string

/** The server's sign-in as creds.json holds it. */
export const oauthIn = (home: string, server: string): any =>
  JSON.parse(readFileSync(join(home, 'creds.json'), 'utf8')).mcp?.[server]?.oauth

/** Calls the server's echo tool with `token`; the text it answered, or the error. */
export async function echoWith(url: string, token: string): Promise<string> {
  const client = new Client({ name: 'test', version: '1' })
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  })
  try {
    await client.connect(transport)
    const r = (await client.callTool({ name: 'echo', arguments: { text: 'hi' } })) as any
    return r.content[0].text
  } catch (err) {
    return `error: ${(err as Error).message}`
  } finally {
    await client.close().catch(() => {})
  }
}

/** Every file of the home but creds.json (logs, the store, the runtime files) is free of `secrets`. */
export function assertNoSecretsOutsideCreds(home: string, secrets: string[]): void {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name)
      return statSync(path).isDirectory() ? walk(path) : [path]
    })
  for (const file of walk(home)) {
    if (file.endsWith('creds.json')) continue
    const text = readFileSync(file).toString('latin1')
    for (const s of secrets) assert.ok(!text.includes(s), `a secret is in ${file}`)
  }
}
