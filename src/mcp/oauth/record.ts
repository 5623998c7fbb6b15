// A server's sign-in as creds.json keeps it, under `mcp.<server>.oauth`: the tokens, the
// client the authorization server knows hearth by, and what discovery found (the resource,
// the authorization server and the part of its metadata that refresh and revocation use).
// Only the sign-in, refresh and logout write it, through `CredentialFiles` (never the
// settings group), so a refresh marks no session for reload.
import type { FileContents, JsonObject } from '../../settings/files.ts'
import { isObject, objectAt, setOrDrop } from '../../settings/merge.ts'

export interface McpOAuthTokens {
  access_token: string
  token_type: string
  refresh_token?: string
  scope?: string
  /** Epoch ms when the access token expires (null: the server did not say). */
  expires_at: number | null
  /** When this sign-in happened (ISO 8601): the sign-in's generation, kept across refreshes. */
  signed_in_at: string
}

export type McpRegistration = 'settings' | 'metadata_document' | 'dynamic'

export interface McpOAuthClient {
  client_id: string
  client_secret?: string
  client_secret_expires_at?: number
  registration: McpRegistration
  redirect_uri: string
  /** The authorization server that registered (or knows) it. */
  issuer: string
}

/** The authorization server's endpoints and methods, as its metadata document gave them. */
export interface McpServerMetadata {
  issuer: string
  authorization_endpoint: string
  token_endpoint: string
  response_types_supported: string[]
  revocation_endpoint?: string
  registration_endpoint?: string
  grant_types_supported?: string[]
  code_challenge_methods_supported?: string[]
  token_endpoint_auth_methods_supported?: string[]
  revocation_endpoint_auth_methods_supported?: string[]
  scopes_supported?: string[]
  client_id_metadata_document_supported?: boolean
}

export interface McpOAuthRecord {
  tokens?: McpOAuthTokens
  client?: McpOAuthClient
  /** The resource indicator (RFC 8707) sent on authorize, token and refresh requests. */
  resource: string
  authorization_server: string
  metadata: McpServerMetadata
}

/** The server's stored sign-in, or null (a hand edit that is not an object reads as none). */
export function oauthOf(files: FileContents, server: string): McpOAuthRecord | null {
  const own = objectAt(objectAt(files['creds.json'], 'mcp'), server)
  const rec = own.oauth
  if (!isObject(rec) || typeof rec.resource !== 'string' || !isObject(rec.metadata)) return null
  const tokens = isObject(rec.tokens) && typeof rec.tokens.access_token === 'string' ? rec.tokens : undefined
  const client = isObject(rec.client) && typeof rec.client.client_id === 'string' ? rec.client : undefined
  return {
    ...(rec as unknown as McpOAuthRecord),
    tokens: tokens as McpOAuthTokens | undefined,
    client: client as McpOAuthClient | undefined,
  }
}

/** The tokens the server's sign-in holds now, or null. */
export const tokensOf = (files: FileContents, server: string): McpOAuthTokens | null =>
  oauthOf(files, server)?.tokens ?? null

/** creds.json with the server's sign-in replaced (null removes it; the server's other secrets stay). */
export function withOAuth(
  files: FileContents,
  server: string,
  record: McpOAuthRecord | null,
): Partial<FileContents> {
  const creds = structuredClone(files['creds.json'])
  const mcp = objectAt(creds, 'mcp')
  const own = objectAt(mcp, server)
  if (record) {
    const clean = Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined))
    own.oauth = clean as JsonObject
  } else delete own.oauth
  setOrDrop(mcp, server, own)
  creds.mcp = mcp
  return { 'creds.json': creds }
}

/** Whether the access token expires within `marginMs` of `now` (an unknown expiry never does). */
export const expiresWithin = (tokens: McpOAuthTokens, now: number, marginMs: number) =>
  tokens.expires_at !== null && tokens.expires_at - now <= marginMs
