// JWT payloads of the ChatGPT sign-in, read for identity and expiry only: the signature is
// not checked (the tokens come straight from the issuer over TLS, and hearth never trusts
// them for anything but naming the account). Garbage reads as an empty object.

/** The claim namespace that holds the ChatGPT workspace, seat and plan. */
export const AUTH_CLAIMS = 'https://api.openai.com/auth'
/** The claim namespace that holds the email when it is not top-level. */
export const PROFILE_CLAIMS = 'https://api.openai.com/profile'

/** The payload of a JWT (`header.payload.signature`, base64url JSON), or `{}` for anything else. */
export function decodeJwtPayload(token: unknown): Record<string, unknown> {
  if (typeof token !== 'string') return {}
  const parts = token.split('.')
  if (parts.length < 2 || parts[1] === '') return {}
  try {
    const value: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'))
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {}
  } catch {
    return {}
  }
}

/** What the ChatGPT tokens say about the account; a field is absent when no token says it. */
export interface ChatgptClaims {
  account_id?: string
  user_id?: string
  email?: string
  plan?: string
  /** Epoch ms of the token's `exp`. */
  expires?: number
}

/** Claims of one decoded payload. */
export function claimsOf(payload: Record<string, unknown>): ChatgptClaims {
  const auth = objectAt(payload, AUTH_CLAIMS)
  const profile = objectAt(payload, PROFILE_CLAIMS)
  const out: ChatgptClaims = {}
  const accountId = text(auth.chatgpt_account_id)
  const userId = text(auth.chatgpt_user_id) ?? text(auth.user_id)
  const email = text(payload.email) ?? text(profile.email)
  const plan = text(auth.chatgpt_plan_type)
  if (accountId) out.account_id = accountId
  if (userId) out.user_id = userId
  if (email) out.email = email
  if (plan) out.plan = plan
  const exp = payload.exp
  if (typeof exp === 'number' && Number.isFinite(exp) && exp > 0) out.expires = Math.round(exp * 1000)
  return out
}

/**
 * Identity from the id token first, then the access token (Codex reads the id token; pi
 * reads the account id from the access token). Expiry comes from the access token only.
 */
export function tokenClaims(idToken: unknown, accessToken: unknown): ChatgptClaims {
  const id = claimsOf(decodeJwtPayload(idToken))
  const access = claimsOf(decodeJwtPayload(accessToken))
  const out: ChatgptClaims = {}
  for (const key of ['account_id', 'user_id', 'email', 'plan'] as const) {
    const value = id[key] ?? access[key]
    if (value !== undefined) out[key] = value
  }
  if (access.expires !== undefined) out.expires = access.expires
  return out
}

function objectAt(obj: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = obj[key]
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {}
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}
