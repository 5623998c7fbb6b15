// Bedrock's front door for the fake upstream's `/anthropic/v1/messages` route
// (FakeOpenAIUpstream.gate): a request must carry exactly one credential, a Bedrock API key
// (`x-api-key`), a bearer token, or a SigV4 signature that verifies. The signature is
// recomputed from the request as it arrived (method, path, the headers it names as signed,
// the body) with the secret of its access key, and its scope must name the expected region
// and service. Refusals look like AWS's: 403 with `x-amzn-errortype` and `{"message": …}`.
import { createHash } from 'node:crypto'
import { SignatureV4 } from '@smithy/signature-v4'
import { Sha256 } from '../../src/providers/bedrock/sign.ts'
import type { FakeGate, FakeRefusal, RecordedRequest } from './openai-upstream.ts'

export interface BedrockAccess {
  region: string
  /** `bedrock` (runtime) or `bedrock-mantle`. */
  service: string
  /** Access key id → its secret and, for temporary keys, the session token. */
  keys?: Record<string, { secret: string; token?: string }>
  apiKeys?: string[]
  bearerTokens?: string[]
}

const AUTH =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/
const SKEW_MS = 15 * 60_000

function refuse(type: string, message: string): FakeRefusal {
  return { status: 403, body: { message }, headers: { 'x-amzn-errortype': type } }
}

export function bedrockGate(access: BedrockAccess): FakeGate {
  return async (record, raw) => {
    const h = record.headers
    const authorization = typeof h.authorization === 'string' ? h.authorization : ''
    const apiKey = typeof h['x-api-key'] === 'string' ? h['x-api-key'] : ''
    const used = [apiKey !== '', authorization.startsWith('Bearer '), authorization.startsWith('AWS4-')]
    if (used.filter(Boolean).length !== 1)
      return refuse('MissingAuthenticationTokenException', 'Missing Authentication Token')
    if (apiKey)
      return access.apiKeys?.includes(apiKey) ? null : refuse('AccessDeniedException', 'Invalid API Key')
    if (authorization.startsWith('Bearer '))
      return access.bearerTokens?.includes(authorization.slice(7))
        ? null
        : refuse('AccessDeniedException', 'Invalid bearer token')
    return checkSignature(access, record, raw)
  }
}

async function checkSignature(access: BedrockAccess, record: RecordedRequest, raw: string) {
  const h = record.headers
  const m = AUTH.exec(String(h.authorization))
  if (!m)
    return refuse(
      'IncompleteSignatureException',
      'Authorization header requires Credential, SignedHeaders and Signature',
    )
  const [, keyId = '', , region = '', service = '', signedList = '', signature] = m
  const key = access.keys?.[keyId]
  if (!key)
    return refuse('UnrecognizedClientException', 'The security token included in the request is invalid.')
  if (region !== access.region || service !== access.service)
    return refuse(
      'InvalidSignatureException',
      `Credential should be scoped to region ${access.region} and service ${access.service}, not ${region}/${service}`,
    )
  const signed = signedList.split(';')
  for (const needed of ['host', 'x-amz-date', ...(key.token ? ['x-amz-security-token'] : [])])
    if (!signed.includes(needed)) return refuse('InvalidSignatureException', `${needed} must be signed`)
  if (h['x-amz-security-token'] !== key.token)
    return refuse('UnrecognizedClientException', 'The security token included in the request is invalid.')
  const sha = createHash('sha256').update(raw).digest('hex')
  if (h['x-amz-content-sha256'] !== undefined && h['x-amz-content-sha256'] !== sha)
    return refuse('InvalidSignatureException', 'x-amz-content-sha256 does not match the body')
  const date = parseAmzDate(String(h['x-amz-date']))
  if (!date || Math.abs(Date.now() - date.getTime()) > SKEW_MS)
    return refuse('InvalidSignatureException', 'Signature expired or not yet current')
  const expected = await expectedSignature(record, raw, { id: keyId, ...key }, signed, region, service, date)
  return expected === signature
    ? null
    : refuse(
        'InvalidSignatureException',
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
      )
}

function parseAmzDate(value: string): Date | null {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value)
  if (!m) return null
  const [y, mo, d, hh, mm, ss] = m.slice(1).map(Number) as [number, number, number, number, number, number]
  return new Date(Date.UTC(y, mo - 1, d, hh, mm, ss))
}

/** A request's SigV4 signature recomputed from what arrived, with the key's secret. */
async function expectedSignature(
  record: RecordedRequest,
  raw: string,
  key: { id: string; secret: string; token?: string },
  signed: string[],
  region: string,
  service: string,
  date: Date,
): Promise<string> {
  const [path = '/', search = ''] = record.path.split('?')
  const headers: Record<string, string> = {}
  for (const name of signed) headers[name] = String(record.headers[name] ?? '')
  const signer = new SignatureV4({
    credentials: {
      accessKeyId: key.id,
      secretAccessKey: key.secret,
      ...(key.token ? { sessionToken: key.token } : {}),
    },
    region,
    service,
    sha256: Sha256,
    applyChecksum: false,
  })
  const out = await signer.sign(
    {
      method: record.method,
      protocol: 'http:',
      hostname: headers.host ?? '',
      path,
      query: Object.fromEntries(new URLSearchParams(search)),
      headers,
      body: raw,
    },
    { signingDate: date },
  )
  return /Signature=([0-9a-f]{64})/.exec(String(out.headers.authorization))?.[1] ?? ''
}
