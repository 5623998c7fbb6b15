// The Antigravity pieces around the Gemini codec: Google error decoding, tool schema
// flattening, meters and the version behind the user agent.
import { deepStrictEqual, strictEqual } from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, test } from 'node:test'
import { decodeGoogleError, verificationUrl } from '../../../src/providers/antigravity/errors.ts'
import { meterOf } from '../../../src/providers/antigravity/meters.ts'
import { flattenSchema } from '../../../src/providers/antigravity/schema.ts'
import {
  antigravityVersion,
  forgetVersion,
  versionInManifest,
} from '../../../src/providers/antigravity/version.ts'

describe('Google error bodies', () => {
  const long = `https://accounts.google.com/signin/continue?plt=${'x'.repeat(600)}`

  test('a JSON error: message, status, reasons, the verification URL whole however long', () => {
    const raw = JSON.stringify({
      error: {
        code: 403,
        message: 'Verify your account',
        status: 'PERMISSION_DENIED',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'VALIDATION_REQUIRED',
            metadata: { validation_url: long },
          },
        ],
      },
    })
    const e = decodeGoogleError(raw)
    strictEqual(e.message, 'Verify your account')
    strictEqual(e.status, 'PERMISSION_DENIED')
    deepStrictEqual(e.reasons, ['VALIDATION_REQUIRED'])
    strictEqual(verificationUrl(e), long)
  })

  test('SSE data lines are decoded too; URLs on other hosts or over http are not usable', () => {
    const raw = [
      'data: {"error": {"message": "m", "details": [{"reason": "VALIDATION_REQUIRED", "metadata": {"verify_url": "http://accounts.google.com/x", "url": "https://evil.example/accounts.google.com/"}}]}}',
      '',
    ].join('\r\n')
    const e = decodeGoogleError(raw)
    strictEqual(e.validationRequired, true)
    strictEqual(e.verifyUrl, null)
    strictEqual(verificationUrl(e), 'https://accounts.google.com/')
  })

  test('no VALIDATION_REQUIRED: no verification, even with a URL in the text', () => {
    const e = decodeGoogleError(
      JSON.stringify({ error: { message: `see ${long}`, status: 'PERMISSION_DENIED' } }),
    )
    strictEqual(verificationUrl(e), null)
  })

  test('RetryInfo and quota reset metadata', () => {
    const e = decodeGoogleError(
      JSON.stringify({
        error: {
          code: 429,
          status: 'RESOURCE_EXHAUSTED',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: 'RATE_LIMIT_EXCEEDED',
              metadata: { quotaResetTimeStamp: '2026-11-25T01:00:00Z', quotaResetDelay: '1h2m' },
            },
            { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '3.5s' },
          ],
        },
      }),
    )
    strictEqual(e.retryAfterMs, 3500)
    strictEqual(e.resetAtMs, Date.parse('2026-11-25T01:00:00Z'))
  })

  test('a body that is not JSON decodes to nothing', () => {
    deepStrictEqual(decodeGoogleError('<html>Bad Gateway</html>').message, null)
  })
})

describe('tool schema flattening', () => {
  test('references resolved, unions keep the first non-null member, const and enums as strings', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      additionalProperties: false,
      $defs: {
        Mode: { enum: ['fast', 'slow', 3] },
        Point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x', 'y'] },
      },
      properties: {
        mode: { $ref: '#/$defs/Mode', description: 'how' },
        at: { anyOf: [{ type: 'null' }, { $ref: '#/$defs/Point' }] },
        kind: { const: 'file' },
        limit: { type: ['integer', 'null'], minimum: 1, maximum: 50, default: 10, description: 'lines' },
        name: { type: 'string', minLength: 1, pattern: '^[a-z]+$', title: 'Name' },
        tags: { type: 'array', items: { oneOf: [{ type: 'string', format: 'uri' }, { type: 'integer' }] } },
        any: { type: 'array' },
      },
      required: ['mode', 'ghost'],
    }
    deepStrictEqual(flattenSchema(schema), {
      type: 'object',
      properties: {
        mode: { type: 'string', enum: ['fast', 'slow', '3'], description: 'how' },
        at: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] },
        kind: { type: 'string', enum: ['file'] },
        limit: { type: 'integer', description: 'lines (minimum: 1, maximum: 50, default: 10)' },
        name: { type: 'string', description: '(minLength: 1, pattern: "^[a-z]+$")' },
        tags: { type: 'array', items: { type: 'string', description: '(format: "uri")' } },
        any: { type: 'array', items: { type: 'string' } },
      },
      required: ['mode'],
    })
  })

  test('a recursive reference ends as a described object; allOf is merged', () => {
    const schema = {
      definitions: { Node: { type: 'object', properties: { child: { $ref: '#/definitions/Node' } } } },
      allOf: [
        { properties: { a: { type: 'string' } }, required: ['a'] },
        { properties: { root: { $ref: '#/definitions/Node' } } },
      ],
    }
    deepStrictEqual(flattenSchema(schema), {
      type: 'object',
      properties: {
        a: { type: 'string' },
        root: { type: 'object', properties: { child: { type: 'object', description: '(recursive: Node)' } } },
      },
      required: ['a'],
    })
  })

  test('an empty schema is an object without properties', () => {
    deepStrictEqual(flattenSchema({}), { type: 'object', properties: {} })
  })
})

describe('meters and version', () => {
  test('model family → meter', () => {
    strictEqual(meterOf('gemini-3-pro-high'), 'gemini')
    strictEqual(meterOf('claude-sonnet-4-5-thinking'), 'claude')
    strictEqual(meterOf('gpt-oss-120b-medium'), 'gpt-oss')
    strictEqual(meterOf('other-model'), null)
  })

  test('the manifest names the version; HEARTH_ANTIGRAVITY_VERSION wins; a dead manifest gives the known one', async () => {
    strictEqual(versionInManifest('Antigravity 1.20.5 (stable)'), '1.20.5')
    strictEqual(versionInManifest('{"version": "1.21.0", "url": "x"}'), '1.21.0')
    strictEqual(versionInManifest('nothing here'), null)
    const server = createServer((_req, res) => res.end('1.22.7'))
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const manifestUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
    try {
      forgetVersion()
      strictEqual(
        await antigravityVersion({ env: { HEARTH_ANTIGRAVITY_VERSION: '2.0.0' }, manifestUrl }),
        '2.0.0',
      )
      strictEqual(await antigravityVersion({ env: {}, manifestUrl }), '1.22.7')
      forgetVersion()
      strictEqual(await antigravityVersion({ env: {}, manifestUrl: 'http://127.0.0.1:1/' }), '1.18.3')
    } finally {
      forgetVersion()
      server.close()
    }
  })
})
