import { deepStrictEqual } from 'node:assert/strict'
import { describe, test } from 'node:test'
import { claimsOf, decodeJwtPayload, tokenClaims } from '../../../src/providers/chatgpt/jwt.ts'
import { fakeJwt } from '../../fakes/chatgpt-backend.ts'

describe('decodeJwtPayload', () => {
  test('reads the base64url JSON payload without checking the signature', () => {
    deepStrictEqual(decodeJwtPayload(fakeJwt({ sub: 'u', exp: 5, ü: '✓' })), { sub: 'u', exp: 5, ü: '✓' })
  })

  test('garbage reads as an empty object', () => {
    for (const token of [
      undefined,
      null,
      42,
      '',
      'no-dots',
      'a..c',
      'a.!!!.c',
      `a.${Buffer.from('[1,2]').toString('base64url')}.c`,
      `a.${Buffer.from('"text"').toString('base64url')}.c`,
      `a.${Buffer.from('{"cut":').toString('base64url')}.c`,
    ]) {
      deepStrictEqual(decodeJwtPayload(token), {}, String(token))
    }
  })
})

describe('claims', () => {
  test('the auth namespace names workspace, seat and plan; exp becomes epoch ms', () => {
    const payload = {
      email: 'top@example.com',
      exp: 1_800_000_000,
      'https://api.openai.com/auth': {
        chatgpt_account_id: 'ws-1',
        chatgpt_user_id: 'user-1',
        chatgpt_plan_type: 'pro',
      },
    }
    deepStrictEqual(claimsOf(payload), {
      account_id: 'ws-1',
      user_id: 'user-1',
      email: 'top@example.com',
      plan: 'pro',
      expires: 1_800_000_000_000,
    })
  })

  test('user_id and the profile email are the fallbacks', () => {
    const payload = {
      'https://api.openai.com/auth': { user_id: 'user-2' },
      'https://api.openai.com/profile': { email: 'profile@example.com' },
    }
    deepStrictEqual(claimsOf(payload), { user_id: 'user-2', email: 'profile@example.com' })
  })

  test('the id token wins for identity, the access token gives the expiry', () => {
    const id = fakeJwt({
      email: 'id@example.com',
      exp: 1,
      'https://api.openai.com/auth': { chatgpt_plan_type: 'team' },
    })
    const access = fakeJwt({
      exp: 2,
      'https://api.openai.com/auth': { chatgpt_account_id: 'ws-a', chatgpt_plan_type: 'plus' },
      'https://api.openai.com/profile': { email: 'access@example.com' },
    })
    deepStrictEqual(tokenClaims(id, access), {
      account_id: 'ws-a',
      email: 'id@example.com',
      plan: 'team',
      expires: 2000,
    })
    deepStrictEqual(tokenClaims('garbage', 'garbage'), {})
  })
})
