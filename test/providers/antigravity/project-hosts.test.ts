// The hosts of the sign-in's project step: loadCodeAssist and onboardUser try their bases
// in order, moving on at once when a host cannot be reached or answers 404 or 5xx, never on
// 401, 403 or 429; the onboarding's polls stay on the host that accepted it. Over real
// sockets: a closed port refuses, a host in front of the fake backend answers scripted
// failures and passes everything else through, the fake backend answers the rest.
import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterEach, beforeEach, describe, test } from 'node:test'
import { CLOUD_CODE_HOSTS, PROJECT_LOOKUP_HOSTS } from '../../../src/providers/antigravity/constants.ts'
import { projectHosts } from '../../../src/providers/antigravity/hosts.ts'
import { antigravityConfig, antigravitySignIn } from '../../../src/providers/antigravity/signin.ts'
import type { StoredCredential } from '../../../src/providers/shared/sign-in-plugin.ts'
import {
  FakeAntigravityBackend,
  type FakeGoogleUser,
  s256,
  VERIFY_URL,
} from '../../fakes/antigravity-backend.ts'
import { readBody } from '../../fakes/http-record.ts'
import { LoopbackServer } from '../../fakes/loopback-server.ts'
import { closedPort, refusal } from './helpers.ts'

const REDIRECT = 'http://127.0.0.1:51121/oauth-callback'
const VERIFIER = 'v'.repeat(43)

type Method = 'loadCodeAssist' | 'onboardUser'
interface Failure {
  status: number
  body: unknown
}

/**
 * A host in front of the fake backend: each call takes the next answer scripted for its
 * method; with none (or `null`) it is passed to the backend and the backend's answer passed back.
 */
class FrontHost {
  readonly hits: Method[] = []
  readonly #failures = new Map<Method, (Failure | null)[]>()
  readonly #server: LoopbackServer
  readonly url: string

  private constructor(server: LoopbackServer) {
    this.#server = server
    this.url = server.url
  }

  static async start(backend: string): Promise<FrontHost> {
    let front: FrontHost | undefined
    const server = await LoopbackServer.listen((req, res) => front!.#handle(req, res, backend))
    front = new FrontHost(server)
    return front
  }

  /** The next calls of `method` answer these, in turn (`null`: the backend answers). */
  fail(method: Method, ...failures: (Failure | null)[]): void {
    this.#failures.set(method, [...(this.#failures.get(method) ?? []), ...failures])
  }

  callsOf(method: Method): number {
    return this.hits.filter((m) => m === method).length
  }

  close(): Promise<void> {
    return this.#server.close()
  }

  async #handle(req: IncomingMessage, res: ServerResponse, backend: string): Promise<void> {
    const raw = await readBody(req)
    const method = (req.url ?? '').replace('/v1internal:', '') as Method
    this.hits.push(method)
    const failure = this.#failures.get(method)?.shift()
    if (failure) {
      res.writeHead(failure.status, { 'content-type': 'application/json; charset=UTF-8' })
      return void res.end(JSON.stringify(failure.body))
    }
    const headers: Record<string, string> = {}
    for (const name of ['authorization', 'content-type', 'accept', 'user-agent', 'client-metadata'])
      if (typeof req.headers[name] === 'string') headers[name] = req.headers[name]
    const answer = await fetch(`${backend}${req.url}`, { method: 'POST', headers, body: raw })
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' })
    res.end(await answer.text())
  }
}

/** Google's error body. */
function googleError(status: number, code: string, message: string, details: unknown[] = []): Failure {
  return { status, body: { error: { code: status, message, status: code, details } } }
}

const unavailable = googleError(503, 'UNAVAILABLE', 'The service is currently unavailable.')
const notFound = googleError(404, 'NOT_FOUND', 'Requested entity was not found.')

let fake: FakeAntigravityBackend
let front: FrontHost

beforeEach(async () => {
  fake = await FakeAntigravityBackend.start()
  front = await FrontHost.start(fake.url)
})
afterEach(async () => {
  await front.close()
  await fake.close()
})

/** A browser sign-in of `user` whose project step tries `bases` (HEARTH_ANTIGRAVITY_BASE_URLS). */
async function signIn(user: FakeGoogleUser, bases: string[]): Promise<StoredCredential> {
  const plugin = antigravitySignIn({
    ...antigravityConfig({
      HEARTH_ANTIGRAVITY_TOKEN_URL: fake.tokenUrl,
      HEARTH_ANTIGRAVITY_BASE_URLS: bases.join(','),
    }),
    userAgent: async () => 'antigravity/hub/9.9.9',
    onboardDelayMs: 1,
  })
  return plugin.exchange({
    code: fake.authorize(user, s256(VERIFIER), REDIRECT),
    redirectUri: REDIRECT,
    state: 'state-1',
    verifier: VERIFIER,
    progress: () => {},
    signal: AbortSignal.timeout(10_000),
  })
}

/** Calls of `method` that reached the fake backend (directly or through the front host). */
const backendCalls = (method: Method) =>
  fake.requests.filter((r) => r.path === `/v1internal:${method}`).length

const newcomer = (): FakeGoogleUser => ({
  email: 'new@example.com',
  project: null,
  onboardPolls: 2,
  onboardProject: 'managed-42',
})

describe('antigravity project hosts', () => {
  test('the order: production first for the lookup, the turns’ order for onboarding; the hooks', () => {
    deepStrictEqual(projectHosts({}), {
      lookup: [
        'https://cloudcode-pa.googleapis.com',
        'https://daily-cloudcode-pa.sandbox.googleapis.com',
        'https://autopush-cloudcode-pa.sandbox.googleapis.com',
      ],
      onboard: [...CLOUD_CODE_HOSTS],
    })
    deepStrictEqual(projectHosts({}).lookup, [...PROJECT_LOOKUP_HOSTS])
    const listed = { HEARTH_ANTIGRAVITY_BASE_URLS: 'http://a/, http://b,' }
    deepStrictEqual(projectHosts(listed), {
      lookup: ['http://a', 'http://b'],
      onboard: ['http://a', 'http://b'],
    })
    deepStrictEqual(projectHosts({ ...listed, HEARTH_ANTIGRAVITY_BASE_URL: 'http://127.0.0.1:9/' }), {
      lookup: ['http://127.0.0.1:9'],
      onboard: ['http://127.0.0.1:9'],
    })
  })

  test('a base that refuses the connection: the next one completes the project step', async () => {
    const found = await signIn({ email: 'ada@example.com', project: 'proj-ada' }, [
      await closedPort(),
      fake.url,
    ])
    strictEqual(found.projectId, 'proj-ada')
    const onboarded = await signIn(newcomer(), [await closedPort(), fake.url])
    strictEqual(onboarded.projectId, 'managed-42')
    strictEqual(backendCalls('onboardUser'), 3)
  })

  test('a 503 and a 404 move on at once, without asking that host again', async () => {
    front.fail('loadCodeAssist', unavailable, notFound)
    const first = await signIn({ email: 'ada@example.com', project: 'proj-ada' }, [front.url, fake.url])
    strictEqual(first.projectId, 'proj-ada')
    strictEqual(front.callsOf('loadCodeAssist'), 1)
    const second = await signIn({ email: 'bob@example.com', project: 'proj-bob' }, [
      front.url,
      await closedPort(),
      fake.url,
    ])
    strictEqual(second.projectId, 'proj-bob')
    strictEqual(front.callsOf('loadCodeAssist'), 2)
    strictEqual(backendCalls('loadCodeAssist'), 2, 'only the last base answered')
  })

  test('a 401, 403 or 429 ends the project step on that host', async () => {
    for (const failure of [
      googleError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.'),
      googleError(403, 'PERMISSION_DENIED', 'The caller does not have permission'),
      googleError(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded.'),
    ]) {
      front.fail('loadCodeAssist', failure)
      const err = await refusal(
        signIn({ email: 'ada@example.com', project: 'proj-ada' }, [front.url, fake.url]),
      )
      strictEqual(err.code, 'project_lookup_failed', `${failure.status}`)
      ok(err.message.endsWith(`(HTTP ${failure.status})`), err.message)
      strictEqual(backendCalls('loadCodeAssist'), 0, `${failure.status}: the next base was not asked`)
    }
    front.fail('onboardUser', googleError(403, 'PERMISSION_DENIED', 'The caller does not have permission'))
    const err = await refusal(signIn(newcomer(), [front.url, fake.url]))
    strictEqual(err.code, 'onboarding_failed')
    strictEqual(backendCalls('onboardUser'), 0)
  })

  test('verification is read whole from whichever host answers', async () => {
    const err = await refusal(
      signIn({ email: 'v@example.com', project: null, verify: 'error' }, [await closedPort(), fake.url]),
    )
    strictEqual(err.code, 'verification_required')
    ok(err.instructions?.endsWith(VERIFY_URL), err.instructions ?? '')
    // A page longer than any message is cut to, from the second base.
    const page = `https://accounts.google.com/signin/continue?continue=${'x'.repeat(600)}`
    front.fail(
      'loadCodeAssist',
      googleError(403, 'PERMISSION_DENIED', 'Verify your account to continue.', [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'VALIDATION_REQUIRED',
          domain: 'cloudcode-pa.googleapis.com',
          metadata: { validation_url: page },
        },
      ]),
    )
    const second = await refusal(
      signIn({ email: 'v@example.com', project: 'p' }, [await closedPort(), front.url, fake.url]),
    )
    strictEqual(second.code, 'verification_required')
    ok(second.instructions?.endsWith(` ${page}`), second.instructions ?? '')
    strictEqual(backendCalls('loadCodeAssist'), 1, 'only the first sign-in reached the backend')
  })

  test('onboarding polls stay on the host that accepted the onboarding', async () => {
    front.fail('onboardUser', unavailable)
    const credential = await signIn(newcomer(), [front.url, fake.url])
    strictEqual(credential.projectId, 'managed-42')
    strictEqual(front.callsOf('onboardUser'), 1, 'the front host refused once and was not polled')
    strictEqual(backendCalls('onboardUser'), 3, 'the onboarding and both polls went to the backend')
  })

  test('a poll that fails on that host ends the onboarding there', async () => {
    // The front host accepts the onboarding (the backend answers), then answers the poll 503.
    front.fail('onboardUser', null, unavailable)
    const err = await refusal(signIn({ ...newcomer(), onboardPolls: 1 }, [front.url, fake.url]))
    strictEqual(err.code, 'onboarding_failed')
    ok(err.message.endsWith('(HTTP 503)'), err.message)
    strictEqual(front.callsOf('onboardUser'), 2)
    strictEqual(backendCalls('onboardUser'), 1, 'the poll did not move to the next base')
  })
})
