// A fake GitHub for the Copilot sign-in: a real HTTP server on 127.0.0.1:0 answering the
// device flow as github.com does, the REST calls on api.github.com (under `/api` here) and
// Copilot's `/models` (under `/copilot`). Written from GitHub's device-flow documentation
// and the shapes pi, opencode and CodexBar read (docs/providers.md, "copilot"); no
// recording of the live endpoints backs it, and the status of a refused device-code
// request (400 here) is a guess.
//
// - `POST /login/device/code` (form or JSON `{client_id, scope}`) → `{device_code,
//   user_code, verification_uri, expires_in, interval}`.
// - `POST /login/oauth/access_token` (`{client_id, device_code, grant_type}`): HTTP 200
//   with `{"error": …}` while it waits, as GitHub does: `authorization_pending`;
//   `slow_down` (with the new `interval`, 5 s more) when polled sooner than the interval
//   or when scripted; `expired_token`; `access_denied`; `incorrect_client_credentials`,
//   `incorrect_device_code`, `unsupported_grant_type`. On approval `{access_token:
//   "ghu_…", token_type: "bearer", scope}`, once.
// - `GET /api/user`, `GET /api/copilot_internal/user` (`Authorization: token|Bearer <GitHub
//   token>`), `GET /api/copilot_internal/v2/token` → `{token, expires_at, refresh_in,
//   endpoints: {api}}` (only tokens of `exchangeClients`; others 403).
// - `GET /copilot/models`: `Bearer` a live Copilot token, or a GitHub token of
//   `directClients`.
// The person's part is played by the test: `approve(userCode, account)`, `deny`, `expire`.
import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { readBody } from './http-record.ts'
import { LoopbackServer } from './loopback-server.ts'

/** The Copilot editor plugins' OAuth app (pi and CodexBar sign in with it). */
export const EDITOR_CLIENT_ID = 'Iv1.b507a08c87ecfe98'

export interface FakeGitHubAccount {
  id: number
  login: string
  /** Whether the account has Copilot (without it the Copilot calls answer 404). */
  copilot: boolean
  /** The `copilot_internal/user` answer; a CodexBar-shaped default when absent. */
  usage?: Record<string, unknown>
}

interface DeviceCode {
  clientId: string
  scope: string
  userCode: string
  expiresAtMs: number
  intervalS: number
  lastPollMs: number | null
  state: 'pending' | 'approved' | 'denied' | 'expired' | 'used'
  account?: FakeGitHubAccount
}

interface Grant {
  account: FakeGitHubAccount
  clientId: string
}

export class FakeGitHub {
  readonly url: string
  /** api.github.com's stand-in. */
  readonly apiUrl: string
  /** The Copilot API's stand-in (what the Copilot token's `endpoints.api` names). */
  readonly copilotUrl: string

  /** A daemon's environment pointing GitHub, the Copilot API and (when named) `gh` at fakes. */
  daemonEnv(ghProgram?: string): Record<string, string> {
    const env: Record<string, string> = {
      HEARTH_COPILOT_GITHUB_URL: this.url,
      HEARTH_COPILOT_API_URL: this.copilotUrl,
    }
    if (ghProgram) env.HEARTH_COPILOT_GH = ghProgram
    return env
  }
  /** Every request: method, path, headers, body as sent, and when it arrived (epoch ms). */
  readonly requests: {
    method: string
    path: string
    headers: IncomingMessage['headers']
    body: string
    at: number
  }[] = []
  /** Seconds a device code lives (GitHub: 900) and the polling interval (GitHub: 5). */
  expiresIn = 900
  interval = 5
  /** Client ids whose tokens the Copilot token exchange accepts. */
  exchangeClients = new Set([EDITOR_CLIENT_ID])
  /** Client ids whose GitHub tokens the Copilot API takes as they are. */
  directClients = new Set<string>()
  /** Seconds a Copilot token lives. */
  copilotTokenTtl = 1800
  /** The API base the exchange names (`endpoints.api`): `/copilot` here, or another fake's URL. */
  copilotApi: string
  /** The next n polls answer `slow_down` whatever their timing. */
  slowDowns = 0
  /** Seconds each `slow_down` adds to the interval (GitHub: 5); tests make it small. */
  slowDownStep = 5
  /** Epoch ms now; tests move time instead of waiting. */
  now: () => number = Date.now
  readonly #server: LoopbackServer
  readonly #codes = new Map<string, DeviceCode>()
  readonly #grants = new Map<string, Grant>()
  readonly #copilotTokens = new Map<string, { account: FakeGitHubAccount; expiresAtMs: number }>()

  private constructor(server: LoopbackServer) {
    this.#server = server
    this.url = server.url
    this.apiUrl = `${server.url}/api`
    this.copilotUrl = `${server.url}/copilot`
    this.copilotApi = this.copilotUrl
  }

  static async start(): Promise<FakeGitHub> {
    let fake: FakeGitHub | undefined
    const server = await LoopbackServer.listen((req, res) => fake!.#handle(req, res))
    fake = new FakeGitHub(server)
    return fake
  }

  close(): Promise<void> {
    return this.#server.close()
  }

  /** The user codes handed out, oldest first. */
  get userCodes(): string[] {
    return [...this.#codes.values()].map((c) => c.userCode)
  }

  /** The person enters the code and authorizes the app as this account. */
  approve(userCode: string, account: FakeGitHubAccount): void {
    const code = this.#byUserCode(userCode)
    code.state = 'approved'
    code.account = account
  }

  /** The device code a user code belongs to (what a client's polls carry). */
  deviceCodeOf(userCode: string): string {
    for (const [deviceCode, code] of this.#codes) if (code.userCode === userCode) return deviceCode
    throw new Error(`no device code has the user code ${userCode}`)
  }

  /** The person presses Cancel. */
  deny(userCode: string): void {
    this.#byUserCode(userCode).state = 'denied'
  }

  /** The code outlives `expires_in`. */
  expire(userCode: string): void {
    this.#byUserCode(userCode).state = 'expired'
  }

  /** A GitHub token for an account without the device flow (as `gh auth token` prints one). */
  issue(account: FakeGitHubAccount, clientId = EDITOR_CLIENT_ID): string {
    const token = `ghu_${randomBytes(18).toString('base64url')}`
    this.#grants.set(token, { account, clientId })
    return token
  }

  /** Revokes a GitHub token (the person removed the app's authorization). */
  revoke(token: string): void {
    this.#grants.delete(token)
  }

  /** Whether a Copilot token was issued here and has not expired. */
  copilotTokenLive(token: string): boolean {
    const t = this.#copilotTokens.get(token)
    return t !== undefined && t.expiresAtMs > this.now()
  }

  #byUserCode(userCode: string): DeviceCode {
    for (const code of this.#codes.values()) if (code.userCode === userCode) return code
    throw new Error(`no device code has the user code ${userCode}`)
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req)
    const path = (req.url ?? '/').split('?')[0]!
    this.requests.push({ method: req.method ?? '', path, headers: req.headers, body, at: Date.now() })
    const route = `${req.method} ${path}`
    const [status, answerBody] = this.#route(route, req, body)
    send(res, status, answerBody)
  }

  #route(route: string, req: IncomingMessage, body: string): Answer {
    if (route === 'POST /login/device/code') return this.#deviceCode(paramsOf(req, body))
    if (route === 'POST /login/oauth/access_token') return this.#poll(paramsOf(req, body))
    if (route === 'GET /api/user') return this.#withGrant(req, (g) => answer(200, userOf(g.account)))
    if (route === 'GET /api/copilot_internal/user')
      return this.#withGrant(req, (g) =>
        g.account.copilot ? answer(200, g.account.usage ?? defaultUsage()) : notFound(),
      )
    if (route === 'GET /api/copilot_internal/v2/token') return this.#withGrant(req, (g) => this.#exchange(g))
    if (route === 'GET /copilot/models') return this.#models(req)
    return notFound()
  }

  #deviceCode(p: Record<string, string>): Answer {
    if (!p.client_id) return answer(400, { error: 'incorrect_client_credentials' })
    const deviceCode = randomBytes(20).toString('hex')
    const userCode = userCodeOf()
    this.#codes.set(deviceCode, {
      clientId: p.client_id,
      scope: p.scope ?? '',
      userCode,
      expiresAtMs: this.now() + this.expiresIn * 1000,
      intervalS: this.interval,
      lastPollMs: null,
      state: 'pending',
    })
    return answer(200, {
      device_code: deviceCode,
      user_code: userCode,
      verification_uri: `${this.url}/login/device`,
      expires_in: this.expiresIn,
      interval: this.interval,
    })
  }

  #poll(p: Record<string, string>): Answer {
    if (p.grant_type !== 'urn:ietf:params:oauth:grant-type:device_code')
      return answer(200, { error: 'unsupported_grant_type' })
    const code = this.#codes.get(p.device_code ?? '')
    if (!code || code.state === 'used') return answer(200, { error: 'incorrect_device_code' })
    if (p.client_id !== code.clientId) return answer(200, { error: 'incorrect_client_credentials' })
    const now = this.now()
    const early = code.lastPollMs !== null && now - code.lastPollMs < code.intervalS * 1000
    code.lastPollMs = now
    if (code.state === 'expired' || now >= code.expiresAtMs) return answer(200, { error: 'expired_token' })
    if (early || this.slowDowns > 0) {
      if (!early) this.slowDowns--
      code.intervalS += this.slowDownStep
      return answer(200, { error: 'slow_down', interval: code.intervalS })
    }
    if (code.state === 'denied') return answer(200, { error: 'access_denied' })
    if (code.state === 'pending') return answer(200, { error: 'authorization_pending' })
    code.state = 'used'
    const token = this.issue(code.account!, code.clientId)
    return answer(200, { access_token: token, token_type: 'bearer', scope: code.scope })
  }

  #exchange(grant: Grant): Answer {
    if (!this.exchangeClients.has(grant.clientId))
      return answer(403, { message: 'Resource not accessible by integration' })
    if (!grant.account.copilot) return notFound()
    const expiresAt = Math.floor(this.now() / 1000) + this.copilotTokenTtl
    const proxy = new URL(this.copilotUrl).host
    const token = `tid=${randomBytes(16).toString('hex')};exp=${expiresAt};sku=copilot_for_individuals;proxy-ep=${proxy};8kp=1:${randomBytes(16).toString('hex')}`
    this.#copilotTokens.set(token, { account: grant.account, expiresAtMs: expiresAt * 1000 })
    return answer(200, {
      token,
      expires_at: expiresAt,
      refresh_in: this.copilotTokenTtl - 300,
      endpoints: { api: this.copilotApi },
    })
  }

  #models(req: IncomingMessage): Answer {
    const token = bearerOf(req)
    const grant = this.#grants.get(token)
    const direct = grant !== undefined && this.directClients.has(grant.clientId) && grant.account.copilot
    if (!this.copilotTokenLive(token) && !direct) return answer(401, { error: 'unauthorized' })
    return answer(200, { data: MODELS, object: 'list' })
  }

  #withGrant(req: IncomingMessage, then: (grant: Grant) => Answer): Answer {
    const grant = this.#grants.get(bearerOf(req))
    if (!grant)
      return answer(401, {
        message: 'Bad credentials',
        documentation_url: 'https://docs.github.com/rest',
        status: '401',
      })
    return then(grant)
  }
}

/** Form-encoded or JSON parameters (GitHub takes both). */
function paramsOf(req: IncomingMessage, body: string): Record<string, string> {
  if ((req.headers['content-type'] ?? '').includes('application/json')) {
    try {
      const parsed = JSON.parse(body) as Record<string, unknown>
      return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]))
    } catch {
      return {}
    }
  }
  return Object.fromEntries(new URLSearchParams(body))
}

/** `token <t>` (REST) or `Bearer <t>`. */
function bearerOf(req: IncomingMessage): string {
  const m = /^(?:token|bearer)\s+(\S+)$/i.exec(req.headers.authorization ?? '')
  return m?.[1] ?? ''
}

function userCodeOf(): string {
  const letters = 'BCDFGHJKLMNPQRSTVWXZ'
  const pick = () => letters[randomBytes(1)[0]! % letters.length]
  return `${Array.from({ length: 4 }, pick).join('')}-${Array.from({ length: 4 }, pick).join('')}`
}

function userOf(a: FakeGitHubAccount): Record<string, unknown> {
  return { login: a.login, id: a.id, type: 'User', name: null, email: null }
}

/** The shape of CodexBar's decoding tests (`CopilotUsageModelsTests.swift`). */
function defaultUsage(): Record<string, unknown> {
  return {
    copilot_plan: 'individual',
    assigned_date: '2026-01-01',
    quota_reset_date: '2026-12-01',
    quota_snapshots: {
      premium_interactions: {
        entitlement: 300,
        remaining: 270,
        percent_remaining: 90,
        quota_id: 'premium_interactions',
        unlimited: false,
      },
      chat: { entitlement: 0, remaining: 0, percent_remaining: 100, quota_id: 'chat', unlimited: true },
    },
  }
}

/** Two models in opencode's schema: one served on /responses, one on /chat/completions. */
const MODELS = [
  {
    id: 'gpt-5.2-codex',
    name: 'GPT-5.2-Codex',
    version: 'gpt-5.2-codex-2026-01-14',
    model_picker_enabled: true,
    supported_endpoints: ['/responses'],
    policy: { state: 'enabled' },
    capabilities: {
      family: 'gpt-5.2-codex',
      limits: { max_context_window_tokens: 400000, max_prompt_tokens: 272000, max_output_tokens: 128000 },
      supports: { tool_calls: true, streaming: true, reasoning_effort: ['low', 'medium', 'high'] },
    },
  },
  {
    id: 'gpt-4.1',
    name: 'GPT-4.1',
    version: 'gpt-4.1-2025-04-14',
    model_picker_enabled: true,
    supported_endpoints: ['/chat/completions'],
    capabilities: {
      family: 'gpt-4.1',
      limits: { max_context_window_tokens: 128000, max_prompt_tokens: 128000, max_output_tokens: 16384 },
      supports: { tool_calls: true, streaming: true, vision: true },
    },
  },
]

/** A status and a JSON body, sent by the route's caller. */
type Answer = [status: number, body: unknown]

const answer = (status: number, body: unknown): Answer => [status, body]

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  })
  res.end(text)
}

function notFound(): Answer {
  return answer(404, {
    message: 'Not Found',
    documentation_url: 'https://docs.github.com/rest',
    status: '404',
  })
}
