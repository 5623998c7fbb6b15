// The SigV4 signer bedrock uses (`@smithy/signature-v4` with sign.ts's Sha256) against the
// official aws-signing-test-suite: awslabs/aws-c-auth, tests/aws-signing-test-suite/v4/
// (Apache-2.0). Each case is a folder with `context.json` (keys, region, service, time,
// flags), `request.txt` (the raw request) and the expected `header-signature.txt`,
// `header-signed-request.txt` (signing into headers) and `query-signature.txt` (presigning).
//
// The suite is kept in fixtures/aws-signing-test-suite (its README says where it comes from);
// HEARTH_SIGV4_SUITE points the test at another copy of the v4 folder.
import { deepStrictEqual, strictEqual } from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { SignatureV4 } from '@smithy/signature-v4'
import { Sha256 } from '../../../src/providers/bedrock/sign.ts'
import { ROOT } from '../../helpers/daemon.ts'

const SUITE =
  process.env.HEARTH_SIGV4_SUITE ??
  join(ROOT, 'test', 'providers', 'bedrock', 'fixtures', 'aws-signing-test-suite', 'v4')

/**
 * Cases the SDK's signer does not model, with the reason. Each is still run and must
 * differ from the expected signature (so a signer that starts to model it is noticed).
 */
const NOT_MODELLED: Readonly<Record<string, string>> = {
  'post-sts-header-after':
    'adds the session token after signing (omit_session_token); the SDK always signs it, as Bedrock accepts',
}

interface Context {
  credentials: { access_key_id: string; secret_access_key: string; token?: string }
  expiration_in_seconds: number
  normalize: boolean
  region: string
  service: string
  sign_body: boolean
  timestamp: string
}

interface RawRequest {
  method: string
  path: string
  query: Record<string, string | string[]>
  headers: Record<string, string>
  body: string
}

/**
 * `request.txt`: a request line (the target may hold spaces and raw UTF-8), `Name:value`
 * header lines (a line starting with whitespace continues the previous value; a repeated
 * name joins its values with commas, as HTTP does), a blank line, the body.
 */
function parseRequest(text: string): RawRequest {
  const [head = '', ...rest] = text.split('\n\n')
  const body = rest.join('\n\n')
  const lines = head.split('\n')
  const requestLine = lines.shift() ?? ''
  const method = requestLine.slice(0, requestLine.indexOf(' '))
  const target = requestLine.slice(method.length + 1, requestLine.lastIndexOf(' '))
  const q = target.indexOf('?')
  const path = q === -1 ? target : target.slice(0, q)
  const query: Record<string, string | string[]> = {}
  if (q !== -1) {
    for (const pair of target.slice(q + 1).split('&')) {
      const eq = pair.indexOf('=')
      const key = decodeURIComponent(eq === -1 ? pair : pair.slice(0, eq))
      const value = eq === -1 ? '' : decodeURIComponent(pair.slice(eq + 1))
      const had = query[key]
      query[key] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value]
    }
  }
  const headers: Record<string, string> = {}
  let last = ''
  for (const line of lines) {
    if (line === '') continue
    if (/^\s/.test(line)) {
      headers[last] += `\n${line}`
      continue
    }
    const colon = line.indexOf(':')
    const name = line.slice(0, colon)
    const value = line.slice(colon + 1)
    const key = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase()) ?? name
    headers[key] = headers[key] === undefined ? value : `${headers[key]},${value}`
    last = key
  }
  return { method, path, query, headers, body }
}

function signerFor(ctx: Context): SignatureV4 {
  const { access_key_id, secret_access_key, token } = ctx.credentials
  return new SignatureV4({
    credentials: {
      accessKeyId: access_key_id,
      secretAccessKey: secret_access_key,
      ...(token ? { sessionToken: token } : {}),
    },
    region: ctx.region,
    service: ctx.service,
    sha256: Sha256,
    uriEscapePath: ctx.normalize,
    applyChecksum: ctx.sign_body,
  })
}

/** RFC 3986 escaping of one path segment: everything but the unreserved characters. */
const escapeSegment = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)

/**
 * The request as the SDK's HttpRequest holds it. With `normalize` (every service but S3)
 * the signer normalizes and escapes the raw path itself; without it (`uriEscapePath:
 * false`) the SDK takes the path as its serializer wrote it, escaped once, and signs it
 * as it is.
 */
function httpRequest(raw: RawRequest, normalize: boolean) {
  const host = Object.entries(raw.headers).find(([k]) => k.toLowerCase() === 'host')?.[1] ?? ''
  const path = normalize ? raw.path : raw.path.split('/').map(escapeSegment).join('/')
  return { protocol: 'https:', hostname: host, ...raw, path }
}

/** `Signature=<hex>` of an Authorization header. */
const signatureOf = (authorization: string) => /Signature=([0-9a-f]{64})/.exec(authorization)?.[1]

const cases = existsSync(SUITE) ? readdirSync(SUITE).sort() : []

describe('SigV4: the aws-signing-test-suite vectors', () => {
  test('the suite has its cases', () => {
    strictEqual(cases.length >= 38, true, `${cases.length} cases in ${SUITE}`)
  })

  for (const name of cases) {
    const dir = join(SUITE, name)
    const read = (file: string) => readFileSync(join(dir, file), 'utf8').replace(/\r\n/g, '\n')
    const ctx = JSON.parse(read('context.json')) as Context
    const date = new Date(ctx.timestamp)

    test(`${name}: signed in headers`, async () => {
      const raw = parseRequest(read('request.txt'))
      const signed = await signerFor(ctx).sign(httpRequest(raw, ctx.normalize), { signingDate: date })
      const got = signatureOf(String(signed.headers.authorization))
      const expected = read('header-signature.txt').trim()
      if (NOT_MODELLED[name]) {
        strictEqual(got === expected, false, `${name} now matches: drop it from NOT_MODELLED`)
        return
      }
      strictEqual(got, expected)
      // Every header the suite's signed request carries is the one the signer sent.
      const wanted = parseRequest(read('header-signed-request.txt')).headers
      const lower = (h: Record<string, unknown>) =>
        Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), String(v)]))
      const sent = lower(signed.headers)
      for (const [key, value] of Object.entries(lower(wanted)))
        if (key.startsWith('x-amz-') || key === 'authorization') deepStrictEqual(sent[key], value, key)
    })

    test(`${name}: presigned in the query`, async () => {
      const raw = parseRequest(read('request.txt'))
      const presigned = await signerFor(ctx).presign(httpRequest(raw, ctx.normalize), {
        signingDate: date,
        expiresIn: ctx.expiration_in_seconds,
      })
      const expected = read('query-signature.txt').trim()
      const got = presigned.query?.['X-Amz-Signature']
      if (NOT_MODELLED[name]) strictEqual(got === expected, false, `${name} now matches`)
      else strictEqual(got, expected)
    })
  }
})
