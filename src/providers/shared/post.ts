// The transport's POST of a step's request. Over node:http with kept-alive connections, the
// request is on the wire ~0.3 ms sooner than through fetch, whose Request and Headers
// machinery runs first (bench/notes/runs.md); fetch still sends where a proxy is configured,
// as only fetch reads the proxy variables (NODE_USE_ENV_PROXY). Either way the answer is a
// fetch Response, which the HTTP half of the transport (http.ts) reads.
import { Agent as HttpAgent, request as httpRequest } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { Readable } from 'node:stream'

/** Connections to upstreams, kept open between steps (as fetch's pool keeps them). */
const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) }

/** Statuses fetch follows (to `location`) instead of answering. */
const REDIRECTS = new Set([301, 302, 303, 307, 308])

/** With any of these set, fetch sends (it reads them under NODE_USE_ENV_PROXY). */
const PROXY_VARS = ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy']

/** POSTs `init.body` to `url`; rejects when the upstream cannot be reached (as fetch does). */
export function postRequest(url: string, init: RequestInit & { body: string }): Promise<Response> {
  const secure = url.startsWith('https:')
  if ((!secure && !url.startsWith('http:')) || PROXY_VARS.some((v) => process.env[v]))
    return globalThis.fetch(url, init)
  return new Promise((resolve, reject) => {
    const headers = {
      ...(init.headers as Record<string, string>),
      'content-length': `${Buffer.byteLength(init.body)}`,
    }
    const send = secure ? httpsRequest : httpRequest
    const req = send(url, {
      method: 'POST',
      headers,
      agent: secure ? agents.https : agents.http,
      signal: init.signal ?? undefined,
    })
    req.once('response', (res) => {
      // fetch follows redirects; it is given the request again, to answer as it always has.
      if (REDIRECTS.has(res.statusCode ?? 0) && res.headers.location) {
        res.resume()
        resolve(globalThis.fetch(url, init))
        return
      }
      const answer = new Headers()
      for (let i = 0; i < res.rawHeaders.length; i += 2)
        answer.append(res.rawHeaders[i], res.rawHeaders[i + 1])
      const status = res.statusCode ?? 0
      const empty = status === 204 || status === 304
      if (empty) res.resume()
      const body = empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>)
      try {
        resolve(new Response(body, { status, statusText: res.statusMessage, headers: answer }))
      } catch (err) {
        // A status a Response cannot hold (past 599): what the upstream said is unusable.
        res.destroy()
        reject(err)
      }
    })
    // Kept for the request's life: an abort after the answer began errors it again.
    req.on('error', reject)
    req.end(init.body)
  })
}
