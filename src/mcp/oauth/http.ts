// Every request of an MCP sign-in gives up after a while: a login's PUT waits for discovery
// and registration, and a refresh holds the credential lock.
export const REQUEST_TIMEOUT_MS = 30_000

/** fetch with the timeout (and the caller's signal, when it gives one). */
export const timedFetch = (url: string | URL, init?: RequestInit) => {
  const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS)
  return fetch(url, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout })
}
