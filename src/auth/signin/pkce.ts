// PKCE (RFC 7636, S256) and the pasted responses a person may give instead of the callback.
import { createHash, randomBytes } from 'node:crypto'

export interface FlowSecrets {
  /** 32 random bytes, base64url: binds the callback to this login. */
  state: string
  /** 32 random bytes, base64url (43 characters, within RFC 7636's 43–128). */
  verifier: string
  challenge: string
}

export function newFlowSecrets(): FlowSecrets {
  const verifier = randomBytes(32).toString('base64url')
  return {
    state: randomBytes(32).toString('base64url'),
    verifier,
    challenge: createHash('sha256').update(verifier).digest('base64url'),
  }
}

export interface PastedResponse {
  code: string | null
  state: string | null
  /** An `error` the provider put in the redirect instead of a code. */
  error: string | null
}

/**
 * Reads what a person pasted: the whole callback URL, `code#state`, a query string
 * (`code=…&state=…`, with or without `?`), or the bare code.
 */
export function parsePastedResponse(text: string): PastedResponse {
  const value = text.trim()
  const fromQuery = (query: string): PastedResponse => {
    const q = new URLSearchParams(query)
    return { code: q.get('code'), state: q.get('state'), error: q.get('error') }
  }
  if (/^https?:\/\//i.test(value)) {
    try {
      return fromQuery(new URL(value).search)
    } catch {
      return { code: null, state: null, error: null }
    }
  }
  if (value.includes('=')) return fromQuery(value.startsWith('?') ? value.slice(1) : value)
  const hash = value.indexOf('#')
  if (hash >= 0)
    return { code: value.slice(0, hash) || null, state: value.slice(hash + 1) || null, error: null }
  return { code: value === '' ? null : value, state: null, error: null }
}
