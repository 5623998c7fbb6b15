// The daemon token as the page holds it. `hearth web` opens /web/#token=…: a fragment is never
// sent to the server, so the token travels in no request line, no log and no Referer. The
// page takes it from the address at once, puts the address back without it, and keeps it in
// memory and in this tab's sessionStorage (a reload of the tab needs it again; another tab,
// or the browser after it closes, does not have it). No cookie is ever set (docs/web.md).
const STORAGE_KEY = 'hearth.token'
const TOKEN = /^[A-Za-z0-9_-]{16,512}$/

let current: string | undefined

function stored(): string | undefined {
  try {
    return sessionStorage.getItem(STORAGE_KEY) ?? undefined
  } catch {
    return undefined
  }
}

/** Moves a token out of the address (`#token=…`), keeping the route that followed it. */
function takeFromAddress(): string | undefined {
  const hash = location.hash.replace(/^#/, '')
  const params = new URLSearchParams(hash.startsWith('/') ? '' : hash)
  const token = params.get('token') ?? undefined
  if (token === undefined) return undefined
  const route = params.get('route') ?? '/'
  history.replaceState(null, '', `${location.pathname}${location.search}#${route}`)
  return token
}

/** The token for this tab: from the address (once), else from the tab's storage. */
export function loadToken(): string | undefined {
  const fromAddress = takeFromAddress()
  if (fromAddress !== undefined) {
    if (!setToken(fromAddress)) return undefined
    return current
  }
  current ??= stored()
  return current
}

/** Keeps a token pasted or taken from the address; false when it cannot be one. */
export function setToken(token: string): boolean {
  const t = token.trim()
  if (!TOKEN.test(t)) return false
  current = t
  try {
    sessionStorage.setItem(STORAGE_KEY, t)
  } catch {
    // storage refused (private mode): the token lives in memory only
  }
  return true
}

/** Forgets the token (the daemon refused it: it was replaced by a restart with a new home). */
export function forgetToken(): void {
  current = undefined
  try {
    sessionStorage.removeItem(STORAGE_KEY)
  } catch {
    // nothing kept
  }
}

export function token(): string | undefined {
  return current
}
