// A fake Google token endpoint for application default credentials: a real HTTP server on
// 127.0.0.1:0 taking the three grants ADC files lead to, as Google's endpoints take them:
// - `urn:ietf:params:oauth:grant-type:jwt-bearer` (service-account keys): the assertion is
//   verified against the registered key's public half (RS256, `kid`, iss = the client
//   email, aud = this endpoint's URL, the cloud-platform scope, at most an hour's life);
// - `refresh_token` with `client_id` and `client_secret` in the form (authorized users);
// - `refresh_token` with the client as HTTP Basic (external account authorized users,
//   Google's STS `token_url`).
// It answers `{access_token, expires_in, token_type}`, or 400/401 with
// `{error, error_description}` as Google does. Issued tokens are in `issued`.
import { generateKeyPairSync } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { decodeProtectedHeader, importSPKI, jwtVerify } from 'jose'
import { LoopbackServer } from './loopback-server.ts'

export const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform'

export interface TokenRequest {
  path: string
  headers: IncomingMessage['headers']
  form: Record<string, string>
  /** The verified JWT's header and claims (jwt-bearer grant). */
  jwt?: { header: Record<string, unknown>; claims: Record<string, unknown> }
}

export interface ServiceAccountKey {
  type: 'service_account'
  project_id: string
  private_key_id: string
  private_key: string
  client_email: string
  client_id: string
  token_uri: string
}

export class FakeGoogleToken {
  readonly requests: TokenRequest[] = []
  readonly issued = new Set<string>()
  /** Refresh tokens accepted, with their client. */
  readonly refreshTokens = new Map<string, { clientId: string; clientSecret: string }>()
  /** Public keys (SPKI PEM) of service accounts, by `private_key_id`. */
  readonly keys = new Map<string, { email: string; publicKey: string }>()
  /** Answer every grant with 400 invalid_grant. */
  refuse = false
  readonly #server: LoopbackServer
  #n = 0

  private constructor(server: LoopbackServer) {
    this.#server = server
  }

  static async start(): Promise<FakeGoogleToken> {
    let fake: FakeGoogleToken | undefined
    const server = await LoopbackServer.listen((req, res) => fake!.#handle(req, res))
    fake = new FakeGoogleToken(server)
    return fake
  }

  /** The token endpoint URL (what a key file's `token_uri` names). */
  get tokenUrl(): string {
    return `${this.#server.url}/token`
  }

  /** The STS endpoint URL (an external account's `token_url`). */
  get stsUrl(): string {
    return `${this.#server.url}/v1/oauthtoken`
  }

  close(): Promise<void> {
    return this.#server.close()
  }

  /** A new service-account key file whose token_uri is this endpoint. */
  serviceAccount(email = 'hearth-test@proj-1.iam.gserviceaccount.com'): ServiceAccountKey {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const id = `key${++this.#n}`
    this.keys.set(id, { email, publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString() })
    return {
      type: 'service_account',
      project_id: 'proj-1',
      private_key_id: id,
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      client_email: email,
      client_id: '1234567890',
      token_uri: this.tokenUrl,
    }
  }

  /** An authorized-user ADC file (gcloud's shape) whose refresh token this endpoint takes. */
  authorizedUser(withTokenUri = true): Record<string, string> {
    const n = ++this.#n
    const file: Record<string, string> = {
      type: 'authorized_user',
      client_id: `client-${n}.apps.googleusercontent.com`,
      client_secret: `secret-${n}`,
      refresh_token: `1//refresh-${n}`,
      quota_project_id: 'quota-proj',
    }
    if (withTokenUri) file.token_uri = this.tokenUrl
    this.refreshTokens.set(file.refresh_token, { clientId: file.client_id, clientSecret: file.client_secret })
    return file
  }

  /** An external-account authorized-user file (workforce federation) pointing at this STS. */
  externalUser(): Record<string, string> {
    const n = ++this.#n
    const file = {
      type: 'external_account_authorized_user',
      audience: '//iam.googleapis.com/locations/global/workforcePools/pool/providers/prov',
      client_id: `ext-client-${n}`,
      client_secret: `ext-secret-${n}`,
      refresh_token: `ext-refresh-${n}`,
      token_url: this.stsUrl,
      token_info_url: `${this.#server.url}/v1/introspect`,
    }
    this.refreshTokens.set(file.refresh_token, { clientId: file.client_id, clientSecret: file.client_secret })
    return file
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')))
    const path = new URL(req.url ?? '/', 'http://x').pathname
    const record: TokenRequest = { path, headers: req.headers, form }
    this.requests.push(record)
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' })
      res.end(JSON.stringify(body))
    }
    const refuse = (description: string, status = 400) =>
      json(status, { error: 'invalid_grant', error_description: description })
    if (req.method !== 'POST') return json(405, { error: 'invalid_request' })
    if (this.refuse) return refuse('Token has been expired or revoked.')
    if (form.grant_type === 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
      const verified = await this.#verify(form.assertion ?? '', `${this.#server.url}${path}`)
      if (typeof verified === 'string') return refuse(verified)
      record.jwt = verified
    } else if (form.grant_type === 'refresh_token') {
      const client = this.refreshTokens.get(form.refresh_token ?? '')
      if (!client) return refuse('Bad Request')
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1]
      const [id, secret] = basic
        ? Buffer.from(basic, 'base64').toString('utf8').split(':')
        : [form.client_id, form.client_secret]
      if (id !== client.clientId || secret !== client.clientSecret)
        return json(401, { error: 'invalid_client', error_description: 'Unauthorized' })
    } else {
      return json(400, { error: 'unsupported_grant_type', error_description: 'Invalid grant_type' })
    }
    const token = `ya29.fake-${++this.#n}`
    this.issued.add(token)
    json(200, { access_token: token, expires_in: 3599, token_type: 'Bearer' })
  }

  async #verify(
    assertion: string,
    audience: string,
  ): Promise<string | { header: Record<string, unknown>; claims: Record<string, unknown> }> {
    try {
      const header = decodeProtectedHeader(assertion) as Record<string, unknown>
      const key = this.keys.get(String(header.kid))
      if (!key) return 'Invalid JWT Signature.'
      const { payload } = await jwtVerify(assertion, await importSPKI(key.publicKey, 'RS256'), {
        algorithms: ['RS256'],
        issuer: key.email,
        audience,
      })
      if (payload.scope !== CLOUD_PLATFORM) return 'Invalid OAuth scope or ID token audience provided.'
      if (
        typeof payload.exp !== 'number' ||
        typeof payload.iat !== 'number' ||
        payload.exp - payload.iat > 3600
      )
        return 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.'
      return { header, claims: payload as Record<string, unknown> }
    } catch {
      return 'Invalid JWT Signature.'
    }
  }
}
