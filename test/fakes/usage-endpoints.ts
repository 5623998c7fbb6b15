// Fake vendor usage endpoints, one server for every feed of the usage core: ChatGPT's
// `wham/usage`, Claude's `/api/oauth/usage` and `/api/oauth/profile`, Antigravity's
// `fetchAvailableModels` / `retrieveUserQuota` / `loadCodeAssist`, z.ai's quota limit,
// MiniMax's remains and GitHub's `copilot_internal/user` (under `/api`, as the fake GitHub
// serves its REST API). Each answers with the vendor's real response shape (the fixtures of
// test/quota/fixtures/, sources in its README) and checks what the vendor checks: the bearer
// it issued, ChatGPT's account header, Claude's OAuth beta, Antigravity's project in the body.
// A test scripts a route's next answers: a status with a body (and headers), a malformed
// body, or a hang that never answers.
import { readFileSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { join } from 'node:path'
import { type RecordedRequest, readBody, recordOf } from './http-record.ts'
import { LoopbackServer } from './loopback-server.ts'

const FIXTURES = join(import.meta.dirname, '../quota/fixtures')
export const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8')

/** The credentials the fake issued: what a test hands the core. */
export const ISSUED = {
  chatgptToken: 'chatgpt-access-token-fixture-0123456789',
  chatgptAccount: 'acct-fixture',
  claudeToken: 'sk-ant-oat01-fixture-0123456789',
  antigravityToken: 'ya29.antigravity-fixture-0123456789',
  antigravityProject: 'fixture-project-123',
  zaiKey: 'zai-key-fixture-0123456789',
  minimaxKey: 'sk-cp-minimax-fixture-0123456789',
  githubToken: 'ghu_copilotFixtureToken0123456789',
} as const

export type Route =
  | 'codex'
  | 'claude-usage'
  | 'claude-profile'
  | 'antigravity-models'
  | 'antigravity-quota'
  | 'antigravity-assist'
  | 'zai'
  | 'minimax-token-plan'
  | 'minimax-coding-plan'
  | 'copilot'

/** One scripted answer. */
export type Scripted =
  | { status: number; body?: string | object; headers?: Record<string, string> }
  | { malformed: true }
  | { hang: true }

interface RouteSpec {
  method: 'GET' | 'POST'
  path: string
  /** The default 200 body. */
  fixture: string | null
  /** Why the vendor would refuse the request, or null. */
  refuse(req: RecordedRequest): Scripted | null
}

const bearer = (req: RecordedRequest) => String(req.headers.authorization ?? '')
const unauthorized = (body: object): Scripted => ({ status: 401, body })

function bearerIs(token: string, refusal: object) {
  return (req: RecordedRequest) => (bearer(req) === `Bearer ${token}` ? null : unauthorized(refusal))
}

const GOOGLE_401 = {
  error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' },
}
function antigravityCheck(req: RecordedRequest, needsProject: boolean): Scripted | null {
  if (bearer(req) !== `Bearer ${ISSUED.antigravityToken}`) return unauthorized(GOOGLE_401)
  if (needsProject && req.body?.project !== ISSUED.antigravityProject)
    return {
      status: 403,
      body: {
        error: { code: 403, message: 'Permission denied on resource project.', status: 'PERMISSION_DENIED' },
      },
    }
  return null
}

const ROUTES: Record<Route, RouteSpec> = {
  codex: {
    method: 'GET',
    path: '/backend-api/wham/usage',
    fixture: 'codex-wham-usage.json',
    refuse: (req) =>
      bearer(req) !== `Bearer ${ISSUED.chatgptToken}`
        ? unauthorized({ detail: 'Could not parse your authentication token. Please try signing in again.' })
        : req.headers['chatgpt-account-id'] !== ISSUED.chatgptAccount
          ? { status: 403, body: { detail: 'Workspace not found or you are not a member.' } }
          : null,
  },
  'claude-usage': {
    method: 'GET',
    path: '/api/oauth/usage',
    fixture: 'claude-oauth-usage.json',
    refuse: (req) =>
      !String(req.headers['anthropic-beta'] ?? '').includes('oauth-2025-04-20')
        ? unauthorized({
            type: 'error',
            error: {
              type: 'authentication_error',
              message: 'OAuth authentication is currently not supported.',
            },
          })
        : bearerIs(ISSUED.claudeToken, {
            type: 'error',
            error: { type: 'authentication_error', message: 'Invalid bearer token' },
          })(req),
  },
  'claude-profile': {
    method: 'GET',
    path: '/api/oauth/profile',
    fixture: 'claude-oauth-profile.json',
    refuse: bearerIs(ISSUED.claudeToken, {
      type: 'error',
      error: { type: 'authentication_error', message: 'Invalid bearer token' },
    }),
  },
  'antigravity-models': {
    method: 'POST',
    path: '/v1internal:fetchAvailableModels',
    fixture: 'antigravity-fetch-available-models.json',
    refuse: (req) => antigravityCheck(req, true),
  },
  'antigravity-quota': {
    method: 'POST',
    path: '/v1internal:retrieveUserQuota',
    fixture: 'antigravity-retrieve-user-quota.json',
    refuse: (req) => antigravityCheck(req, true),
  },
  'antigravity-assist': {
    method: 'POST',
    path: '/v1internal:loadCodeAssist',
    fixture: 'antigravity-load-code-assist.json',
    refuse: (req) => antigravityCheck(req, false),
  },
  zai: {
    method: 'GET',
    path: '/api/monitor/usage/quota/limit',
    fixture: 'zai-quota-limit.json',
    refuse: bearerIs(ISSUED.zaiKey, {
      code: 1001,
      msg: 'Authorization Token Missing or Invalid',
      success: false,
    }),
  },
  'minimax-token-plan': {
    method: 'GET',
    path: '/v1/token_plan/remains',
    fixture: 'minimax-token-plan-remains.json',
    refuse: bearerIs(ISSUED.minimaxKey, { base_resp: { status_code: 1004, status_msg: 'login fail' } }),
  },
  'minimax-coding-plan': {
    method: 'GET',
    path: '/v1/api/openplatform/coding_plan/remains',
    fixture: 'minimax-coding-plan-remains.json',
    refuse: bearerIs(ISSUED.minimaxKey, { base_resp: { status_code: 1004, status_msg: 'login fail' } }),
  },
  copilot: {
    method: 'GET',
    path: '/api/copilot_internal/user',
    fixture: 'copilot-internal-user.json',
    // GitHub's REST API takes `token <t>` (CodexBar's scheme) and `Bearer <t>`.
    refuse: (req) =>
      /^(?:token|bearer) (\S+)$/i.exec(bearer(req))?.[1] === ISSUED.githubToken
        ? null
        : unauthorized({
            message: 'Bad credentials',
            documentation_url: 'https://docs.github.com/rest',
            status: '401',
          }),
  },
}

export class FakeUsageEndpoints {
  readonly requests: (RecordedRequest & { route: Route | null })[] = []
  readonly #scripts = new Map<Route, Scripted[]>()
  #server!: LoopbackServer

  static async start(): Promise<FakeUsageEndpoints> {
    const fake = new FakeUsageEndpoints()
    fake.#server = await LoopbackServer.listen((req, res) => fake.#handle(req, res))
    return fake
  }

  get url(): string {
    return this.#server.url
  }

  /** The next answers of a route, in order (then the fixture again). */
  script(route: Route, ...answers: Scripted[]): void {
    this.#scripts.set(route, [...(this.#scripts.get(route) ?? []), ...answers])
  }

  /** Forgets the scripts and the recorded requests. */
  reset(): void {
    this.#scripts.clear()
    this.requests.length = 0
  }

  of(route: Route): RecordedRequest[] {
    return this.requests.filter((r) => r.route === route)
  }

  close(): Promise<void> {
    return this.#server.close()
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const record = recordOf(req, res, await readBody(req))
    const path = record.path.split('?')[0]
    const entry = (Object.entries(ROUTES) as [Route, RouteSpec][]).find(
      ([, spec]) => spec.path === path && spec.method === record.method,
    )
    this.requests.push({ ...record, route: entry?.[0] ?? null })
    if (!entry) return answer(res, { status: 404, body: { error: 'not found' } })
    const [route, spec] = entry
    const scripted = this.#scripts.get(route)?.shift()
    if (scripted && 'hang' in scripted) return // never answers; the client's timeout ends it
    if (scripted && 'malformed' in scripted) return answer(res, { status: 200, body: '{"not json' })
    const refusal = spec.refuse(record)
    if (refusal) return answer(res, refusal)
    if (scripted) return answer(res, scripted)
    answer(res, { status: 200, body: spec.fixture ? fixture(spec.fixture) : '{}' })
  }
}

function answer(res: ServerResponse, a: Scripted): void {
  if (!('status' in a)) return
  const text = typeof a.body === 'string' ? a.body : JSON.stringify(a.body ?? {})
  res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers })
  res.end(text)
}
