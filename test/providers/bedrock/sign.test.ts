// sign.ts against a published known answer: the worked example of AWS's Signature Version 4
// documentation (IAM `ListUsers`, example keys, 2015-08-30T12:36:00Z; its signature is
// printed there), through signedHeaders exactly as the bedrock transport calls it. The whole
// aws-signing-test-suite runs in sigv4-suite.test.ts.
import { deepStrictEqual, strictEqual } from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { describe, test } from 'node:test'
import { Sha256, signedHeaders } from '../../../src/providers/bedrock/sign.ts'

const EXAMPLE_KEYS = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
}
const DATE = new Date('2015-08-30T12:36:00Z')

describe('SigV4 signing', () => {
  test("AWS's documented example signs to its documented signature", async () => {
    const headers = await signedHeaders(
      {
        url: 'https://iam.amazonaws.com/?Action=ListUsers&Version=2010-05-08',
        method: 'GET',
        headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
        body: '',
      },
      { credentials: EXAMPLE_KEYS, region: 'us-east-1', service: 'iam', date: DATE, applyChecksum: false },
    )
    strictEqual(
      headers.authorization,
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7',
    )
    strictEqual(headers['x-amz-date'], '20150830T123600Z')
  })

  test('a bedrock request: the body hash, the session token and the port-bearing host are signed', async () => {
    const body = '{"model":"m","stream":true}'
    const headers = await signedHeaders(
      {
        url: 'http://127.0.0.1:4567/anthropic/v1/messages',
        method: 'POST',
        headers: { accept: 'text/event-stream' },
        body,
      },
      {
        credentials: { ...EXAMPLE_KEYS, sessionToken: 'token' },
        region: 'eu-west-1',
        service: 'bedrock',
        date: DATE,
      },
    )
    strictEqual(headers.host, '127.0.0.1:4567')
    strictEqual(headers['x-amz-security-token'], 'token')
    strictEqual(headers['x-amz-content-sha256'], createHash('sha256').update(body).digest('hex'))
    deepStrictEqual(
      /SignedHeaders=([^,]+),/.exec(headers.authorization ?? '')?.[1],
      'accept;host;x-amz-content-sha256;x-amz-date;x-amz-security-token',
    )
    strictEqual(/\/20150830\/eu-west-1\/bedrock\/aws4_request/.test(headers.authorization ?? ''), true)
  })

  test('Sha256: SHA-256 and HMAC-SHA-256 of strings and bytes, and reset', async () => {
    const hex = async (h: Sha256) => Buffer.from(await h.digest()).toString('hex')
    const plain = new Sha256()
    plain.update('abc')
    strictEqual(await hex(plain), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
    // RFC 4231 test case 2.
    const mac = new Sha256('Jefe')
    mac.update(new TextEncoder().encode('what do ya want for nothing?'))
    strictEqual(await hex(mac), '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843')
    mac.reset()
    mac.update('what do ya want ')
    mac.update(new TextEncoder().encode('for nothing?').buffer)
    strictEqual(await hex(mac), '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843')
  })
})
