// Application default credentials against a fake Google token endpoint over a real socket:
// the three file shapes, the JWT checked against the key's public half, the endpoint each
// file names, no cache, and errors that carry no secret.
import { deepStrictEqual, match, ok, rejects, strictEqual } from 'node:assert/strict'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, beforeEach, describe, test } from 'node:test'
import { AdcError, adcAccessToken, adcPath } from '../../../src/providers/vertex/adc.ts'
import { CLOUD_PLATFORM, FakeGoogleToken } from '../../fakes/google-token.ts'

let fake: FakeGoogleToken
let dir: string

before(async () => {
  fake = await FakeGoogleToken.start()
})
after(() => fake.close())
beforeEach(() => {
  fake.requests.length = 0
  fake.refuse = false
  dir = mkdtempSync(join(tmpdir(), 'hearth-adc-'))
})

function write(content: unknown, name = 'adc.json'): string {
  const path = join(dir, name)
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content))
  return path
}

const token = (path: string) =>
  adcAccessToken({
    signal: AbortSignal.timeout(10_000),
    env: { GOOGLE_APPLICATION_CREDENTIALS: path },
    home: dir,
  })

async function adcError(path: string): Promise<AdcError> {
  try {
    await token(path)
  } catch (err) {
    ok(err instanceof AdcError, String(err))
    return err
  }
  throw new Error('no error')
}

describe('service account key', () => {
  test('an RS256 JWT, verified with the public key, exchanged at the file token_uri', async () => {
    const key = fake.serviceAccount()
    const t0 = Math.floor(Date.now() / 1000)
    const got = await token(write(key))
    ok(fake.issued.has(got.accessToken))
    strictEqual(got.quotaProject, null)
    strictEqual(fake.requests.length, 1)
    const [r] = fake.requests
    strictEqual(r.path, '/token')
    strictEqual(r.form.grant_type, 'urn:ietf:params:oauth:grant-type:jwt-bearer')
    strictEqual(r.headers['content-type'], 'application/x-www-form-urlencoded')
    deepStrictEqual(r.jwt?.header, { alg: 'RS256', typ: 'JWT', kid: key.private_key_id })
    const claims = r.jwt?.claims ?? {}
    strictEqual(claims.iss, key.client_email)
    strictEqual(claims.aud, fake.tokenUrl)
    strictEqual(claims.scope, CLOUD_PLATFORM)
    ok(Math.abs(Number(claims.iat) - t0) <= 5)
    strictEqual(Number(claims.exp) - Number(claims.iat), 3600)
  })

  test('a key the endpoint does not know fails unauthorized, without the key or assertion in the message', async () => {
    const key = fake.serviceAccount()
    const other = fake.serviceAccount()
    const err = await adcError(write({ ...key, private_key: other.private_key }))
    strictEqual(err.code, 'upstream_unauthorized')
    match(
      err.message,
      /refused the application default credentials: invalid_grant: Invalid JWT Signature\. \(HTTP 400\)/,
    )
    ok(!err.message.includes('PRIVATE KEY'))
    ok(!err.message.includes(fake.requests[0].form.assertion))
  })

  test('a key that is not a PEM private key fails before any request', async () => {
    const err = await adcError(write({ ...fake.serviceAccount(), private_key: 'not a key' }))
    strictEqual(err.code, 'credentials_unusable')
    match(err.message, /cannot sign/)
    strictEqual(fake.requests.length, 0)
  })
})

describe('authorized user', () => {
  test('the refresh grant with the client in the body, to the file token_uri; quota project kept', async () => {
    const file = fake.authorizedUser()
    const got = await token(write(file))
    ok(fake.issued.has(got.accessToken))
    strictEqual(got.quotaProject, 'quota-proj')
    const [r] = fake.requests
    deepStrictEqual(r.form, {
      grant_type: 'refresh_token',
      client_id: file.client_id,
      client_secret: file.client_secret,
      refresh_token: file.refresh_token,
    })
    strictEqual(r.headers.authorization, undefined)
  })

  test('a revoked refresh token: unauthorized, no secret in the message', async () => {
    const file = fake.authorizedUser()
    fake.refuse = true
    const err = await adcError(write(file))
    strictEqual(err.code, 'upstream_unauthorized')
    match(err.message, /invalid_grant: Token has been expired or revoked/)
    ok(!err.message.includes(file.refresh_token) && !err.message.includes(file.client_secret))
  })

  test('without token_uri the request goes to Google (unreachable here: the fetch sees that URL)', async () => {
    const seen: string[] = []
    const fetch: typeof globalThis.fetch = async (url) => {
      seen.push(String(url))
      throw new TypeError('fetch failed')
    }
    const path = write(fake.authorizedUser(false))
    await rejects(
      adcAccessToken({
        signal: AbortSignal.timeout(5000),
        env: { GOOGLE_APPLICATION_CREDENTIALS: path },
        fetch,
      }),
      (err: AdcError) => err.code === 'upstream_unavailable',
    )
    deepStrictEqual(seen, ['https://oauth2.googleapis.com/token'])
  })
})

describe('external account authorized user', () => {
  test('the refresh grant to token_url with the client as HTTP Basic', async () => {
    const file = fake.externalUser()
    const got = await token(write(file))
    ok(fake.issued.has(got.accessToken))
    const [r] = fake.requests
    strictEqual(r.path, '/v1/oauthtoken')
    deepStrictEqual(r.form, { grant_type: 'refresh_token', refresh_token: file.refresh_token })
    strictEqual(
      r.headers.authorization,
      `Basic ${Buffer.from(`${file.client_id}:${file.client_secret}`).toString('base64')}`,
    )
  })

  test('a wrong client secret is refused by the endpoint', async () => {
    const file = fake.externalUser()
    const err = await adcError(write({ ...file, client_secret: 'wrong' }))
    strictEqual(err.code, 'upstream_unauthorized')
    match(err.message, /invalid_client/)
  })
})

describe('the file', () => {
  test('GOOGLE_APPLICATION_CREDENTIALS wins; else gcloud default under the home', () => {
    strictEqual(adcPath({ GOOGLE_APPLICATION_CREDENTIALS: '/k.json' }, '/h'), '/k.json')
    strictEqual(adcPath({}, '/h'), '/h/.config/gcloud/application_default_credentials.json')
  })

  test('the gcloud default file is read when no variable is set', async () => {
    mkdirSync(join(dir, '.config', 'gcloud'), { recursive: true })
    writeFileSync(
      join(dir, '.config', 'gcloud', 'application_default_credentials.json'),
      JSON.stringify(fake.authorizedUser()),
    )
    const got = await adcAccessToken({ signal: AbortSignal.timeout(10_000), env: {}, home: dir })
    ok(fake.issued.has(got.accessToken))
  })

  test('read fresh on every call: no token cache, a replaced file applies at once', async () => {
    const path = write(fake.authorizedUser())
    const a = await token(path)
    const b = await token(path)
    strictEqual(fake.requests.length, 2)
    ok(a.accessToken !== b.accessToken)
    writeFileSync(path, JSON.stringify(fake.externalUser()))
    await token(path)
    strictEqual(fake.requests.at(-1)?.path, '/v1/oauthtoken')
  })

  test('missing (credentials_not_found); not JSON, unknown type, missing fields (credentials_unusable)', async () => {
    const missing = await adcError(join(dir, 'none.json'))
    strictEqual(missing.code, 'credentials_not_found')
    match(
      missing.message,
      /no application default credentials at .*none\.json: run `gcloud auth application-default login`/,
    )
    const unusable = [
      [await adcError(write('{oops')), /not a JSON object/],
      [
        await adcError(write({ type: 'external_account' })),
        /of type "external_account", which hearth cannot use/,
      ],
      [
        await adcError(write({ type: 'authorized_user', client_id: 'x' })),
        /lack client_secret, refresh_token/,
      ],
    ] as const
    for (const [err, says] of unusable) {
      match(err.message, says)
      strictEqual(err.code, 'credentials_unusable', err.message)
    }
    strictEqual(fake.requests.length, 0)
  })
})
