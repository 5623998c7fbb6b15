import { deepStrictEqual } from 'node:assert/strict'
import { describe, test } from 'node:test'
import { anthropicErrorCode, anthropicFailure } from '../../../src/providers/anthropic-messages/errors.ts'

const body = (type: string, message: string) =>
  JSON.stringify({ type: 'error', error: { type, message }, request_id: 'req_011CSHoEeqs5C35K2UUqR7Fy' })

describe('Anthropic HTTP error bodies', () => {
  test('each documented error type maps to a stable code, retried only when transient', () => {
    const cases: [number, string, string, boolean][] = [
      [400, 'invalid_request_error', 'upstream_rejected', false],
      [401, 'authentication_error', 'upstream_unauthorized', false],
      [403, 'permission_error', 'upstream_unauthorized', false],
      [404, 'not_found_error', 'upstream_rejected', false],
      [413, 'request_too_large', 'upstream_rejected', false],
      [429, 'rate_limit_error', 'upstream_rate_limited', true],
      [500, 'api_error', 'upstream_unavailable', true],
      [529, 'overloaded_error', 'upstream_unavailable', true],
    ]
    for (const [status, type, code, retryable] of cases) {
      deepStrictEqual(anthropicFailure(status, body(type, 'Something happened')), {
        code,
        message: `HTTP ${status}: ${type}: Something happened (request req_011CSHoEeqs5C35K2UUqR7Fy)`,
        retryable,
      })
    }
  })

  test('an unknown type falls back to the status; a body that is not Anthropic JSON is left to the defaults', () => {
    deepStrictEqual(anthropicErrorCode('brand_new_error', 503), 'upstream_unavailable')
    deepStrictEqual(anthropicErrorCode(null, 418), 'upstream_rejected')
    deepStrictEqual(anthropicFailure(502, '<html>Bad gateway</html>'), null)
    deepStrictEqual(anthropicFailure(400, '{"message":"plain"}'), null)
  })
})
