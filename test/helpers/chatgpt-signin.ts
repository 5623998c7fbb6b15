// Signing a seat of the fake ChatGPT backend in through the daemon's manual login flow, as
// a client does: start the login, authorize at the fake with the login's PKCE challenge,
// paste back `code#state`. Resolves with the signed-in accounts the completed login lists.
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { v7 as uuidv7 } from 'uuid'
import { freePort } from '../auth/oidc-peer.ts'
import type { FakeChatgptBackend, FakeSeat } from '../fakes/chatgpt-backend.ts'
import { startDaemon, type TestDaemon, tempHome } from './daemon.ts'

export async function signInChatgpt(
  d: TestDaemon,
  fake: FakeChatgptBackend,
  seat: FakeSeat,
): Promise<{ id: string }[]> {
  const id = uuidv7()
  const created = await d.request({
    method: 'PUT',
    path: `/auth/logins/${id}`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ provider: 'chatgpt', flow: 'manual', values: {} }),
  })
  const url = new URL(created.json().url)
  const code = fake.authorize(
    seat,
    url.searchParams.get('code_challenge') as string,
    url.searchParams.get('redirect_uri') as string,
  )
  const done = await d.request({
    method: 'PATCH',
    path: `/auth/logins/${id}`,
    headers: { 'content-type': 'application/merge-patch+json', 'if-match': String(created.headers.etag) },
    body: JSON.stringify({ response: `${code}#${url.searchParams.get('state')}` }),
  })
  assert.equal(done.json().state, 'complete', done.text())
  return done.json().accounts
}

/**
 * A daemon whose default profile `sub` is the fake backend's chatgpt provider, signing in
 * through the fake's issuer; `profile` adds profile fields, `config` further groups.
 */
export async function startChatgptDaemon(
  fake: FakeChatgptBackend,
  opts: {
    profile?: Record<string, unknown>
    config?: Record<string, unknown>
    env?: Record<string, string>
  } = {},
): Promise<TestDaemon> {
  const home = tempHome()
  mkdirSync(home, { recursive: true })
  const profile = { extension: 'chatgpt', endpoint: fake.backendUrl, model: 'gpt-5.1-codex', ...opts.profile }
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({
      providers: {
        default_profile: 'sub',
        profiles: { sub: profile },
        sign_in: { chatgpt: { issuer: fake.url, callback_port: await freePort() } },
      },
      ...opts.config,
    }),
  )
  return startDaemon({ home, env: opts.env })
}
