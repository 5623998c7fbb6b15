// The two peers of an MCP sign-in, both real: an OAuth authorization server (oidc-provider
// with dynamic registration, resource indicators, revocation, PKCE required, and client id
// metadata documents through its client adapter), and an MCP server built with the SDK on
// streamable HTTP that takes only a JWT the authorization server issued for its resource,
// serves its protected resource metadata and answers 401 with the metadata's URL.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { createRemoteJWKSet, jwtVerify } from 'jose'
import Provider from 'oidc-provider'
// @ts-expect-error: oidc-provider's own adapter has no type declarations
import MemoryAdapter from 'oidc-provider/lib/adapters/memory_adapter.js'
import { fakeMcpServer } from '../fakes/mcp/tools.ts'

export const SCOPE = 'mcp:tools'

const StoreAdapter = MemoryAdapter as new (
  name: string,
) => { model: string; find(id: string): Promise<unknown> }

const listen = async (server: Server) => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}
const closer = (server: Server) => () =>
  new Promise<void>((r) => {
    server.closeAllConnections()
    server.close(() => r())
  })

export interface AuthServerOptions {
  /** The resource its tokens may be issued for (the MCP server's URL). */
  resource: string
  /** Offers dynamic client registration (default true). */
  registration?: boolean
  /** Advertises and accepts client id metadata documents. */
  metadataDocuments?: boolean
  /** A client registered beforehand. */
  client?: { client_id: string; client_secret?: string }
  /** Access token lifetime, seconds (default one hour). */
  accessTokenTtl?: number
}

/** What the authorization server saw, for the tests' assertions. */
export interface Seen {
  /** Authorization requests' parameters. */
  authorize: Record<string, string>[]
  /** Token requests: grant, resource, whether a verifier came, the client. */
  token: { grant_type: string; resource: string | undefined; code_verifier: boolean; client_id: string }[]
  registrations: number
  revocations: number
  /** Client id metadata documents fetched. */
  documents: string[]
}

export interface AuthServer {
  issuer: string
  seen: Seen
  close(): Promise<void>
}

export async function startAuthServer(o: AuthServerOptions): Promise<AuthServer> {
  const seen: Seen = { authorize: [], token: [], registrations: 0, revocations: 0, documents: [] }
  const server = createServer()
  const issuer = await listen(server)
  class Adapter extends StoreAdapter {
    override async find(id: string) {
      if (this.model !== 'Client' || !/^https?:\/\//.test(id)) return super.find(id)
      seen.documents.push(id)
      const doc = (await (await fetch(id)).json()) as Record<string, unknown>
      if (doc.client_id !== id) return undefined
      return { application_type: 'native', token_endpoint_auth_method: 'none', ...doc }
    }
  }
  const provider = new Provider(issuer, {
    adapter: Adapter,
    clients: o.client
      ? [
          {
            ...o.client,
            application_type: 'native',
            token_endpoint_auth_method: o.client.client_secret ? 'client_secret_basic' : 'none',
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            redirect_uris: ['http://127.0.0.1/callback'],
          },
        ]
      : [],
    pkce: { required: () => true },
    scopes: ['openid', 'offline_access', SCOPE],
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: o.registration !== false },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          if (indicator !== o.resource) throw new Error(`unknown resource ${indicator}`)
          return {
            scope: SCOPE,
            audience: indicator,
            accessTokenTTL: o.accessTokenTtl ?? 3600,
            accessTokenFormat: 'jwt',
          }
        },
      },
    },
    discovery: o.metadataDocuments ? { client_id_metadata_document_supported: true } : {},
    issueRefreshToken: () => true,
    rotateRefreshToken: () => true,
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub }) }),
  } as never)
  provider.proxy = false
  provider.use(async (ctx: any, next: () => Promise<void>) => {
    if (ctx.path === '/auth' && ctx.method === 'GET') seen.authorize.push({ ...ctx.query })
    await next()
    if (ctx.path === '/token' && ctx.oidc?.params)
      seen.token.push({
        grant_type: ctx.oidc.params.grant_type,
        resource: ctx.oidc.params.resource,
        code_verifier: typeof ctx.oidc.params.code_verifier === 'string',
        client_id: ctx.oidc.client?.clientId,
      })
    if (ctx.path === '/reg' && ctx.status === 201) seen.registrations++
    if (ctx.path === '/token/revocation' && ctx.status === 200) seen.revocations++
  })
  server.on('request', provider.callback())
  return { issuer, seen, close: closer(server) }
}

export interface McpServerOptions {
  /** What the protected resource metadata names as the resource (default: the server's URL). */
  resource?: (url: string) => string
  /** Leaves the `resource_metadata` hint out of the 401 (the client must try the well-known URLs). */
  noHint?: boolean
}

export interface ProtectedMcp {
  url: string
  /** Set once the authorization server is up (the metadata names it). */
  issuer: string
  /** Requests refused for want of a valid token. */
  refused: number
  /** Tool calls served. */
  served: number
  close(): Promise<void>
}

/** The MCP server at `/mcp`, its metadata at the path-aware well-known URL. */
export async function startProtectedMcp(o: McpServerOptions = {}): Promise<ProtectedMcp> {
  const server = createServer()
  const origin = await listen(server)
  const url = `${origin}/mcp`
  const metadataUrl = `${origin}/.well-known/oauth-protected-resource/mcp`
  const self: ProtectedMcp = { url, issuer: '', refused: 0, served: 0, close: closer(server) }
  let jwks: ReturnType<typeof createRemoteJWKSet> | undefined
  const valid = async (header: string | undefined) => {
    if (!header?.startsWith('Bearer ')) return false
    jwks ??= createRemoteJWKSet(new URL(`${self.issuer}/jwks`))
    try {
      await jwtVerify(header.slice(7), jwks, { issuer: self.issuer, audience: url })
      return true
    } catch {
      return false
    }
  }
  server.on('request', async (req, res) => {
    if (req.url === '/.well-known/oauth-protected-resource/mcp') {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          resource: o.resource ? o.resource(url) : url,
          authorization_servers: [self.issuer],
          scopes_supported: [SCOPE],
        }),
      )
      return
    }
    if (req.url !== '/mcp') return void res.writeHead(404).end()
    if (!(await valid(req.headers.authorization))) {
      self.refused++
      const hint = o.noHint ? '' : `resource_metadata="${metadataUrl}", `
      res.writeHead(401, { 'www-authenticate': `Bearer ${hint}scope="${SCOPE}"` })
      res.end('{"error":"unauthorized"}')
      return
    }
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end()
    self.served++
    const mcp = fakeMcpServer('protected')
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
    res.on('close', () => {
      void transport.close()
      void mcp.close()
    })
    await mcp.connect(transport)
    await transport.handleRequest(req, res)
  })
  return self
}
