// The web client's files, served under /web/ from dist/web/ (built by scripts/build.mjs).
// They hold no secret, so they are served without the token, but only after the Host and
// Origin guards (a rebinding name or another origin gets nothing). Every answer carries the
// page's Content-Security-Policy: scripts and styles from this origin only, no inline code,
// connections to this origin only, no framing (docs/web.md has the threat model).
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { acceptsEncoding } from './negotiate.ts'
import { problemResponse } from './problem-response.ts'

export const WEB_PREFIX = '/web/'

export const WEB_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': WEB_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
}

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  ico: 'image/x-icon',
  json: 'application/json',
}

/** A built file's name: hashed assets are `name-HASH.ext`; only index.html is not. */
const FILE_NAME = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9]+)+$/
const HASHED = /-[A-Z0-9]{8}\.[a-z]+$/

interface WebFile {
  bytes: Buffer
  br?: Buffer
  gzip?: Buffer
}

/** Whether a request path belongs to the web client (`/web` and everything under `/web/`). */
export function isWebPath(pathname: string): boolean {
  return pathname === '/web' || pathname.startsWith(WEB_PREFIX)
}

export class WebFiles {
  readonly #root: string
  /** Hashed files never change under their name: read once. index.html is read each time. */
  readonly #cache = new Map<string, WebFile>()

  constructor(root: string) {
    this.#root = root
  }

  serve(method: string, pathname: string, acceptEncoding: string | undefined): Response {
    if (method !== 'GET' && method !== 'HEAD')
      return problemResponse('method_not_allowed', 'Allowed: GET, HEAD', { allow: 'GET, HEAD' })
    // The page's own address is /web/; its fragment (the token) stays in the browser.
    if (pathname === '/web') return new Response(null, { status: 308, headers: { location: WEB_PREFIX } })
    const name = pathname === WEB_PREFIX ? 'index.html' : pathname.slice(WEB_PREFIX.length)
    // One level of plain names: nothing else under the folder can be reached.
    const file = FILE_NAME.test(name) && !/\.(gz|br)$/.test(name) ? this.#read(name) : undefined
    if (!file) return problemResponse('not_found', 'No such file of the web client')
    const headers: Record<string, string> = {
      ...SECURITY_HEADERS,
      'content-type': TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream',
      'cache-control': HASHED.test(name) ? 'public, max-age=31536000, immutable' : 'no-cache',
      vary: 'Accept-Encoding',
    }
    let body = file.bytes
    if (file.br && acceptsEncoding(acceptEncoding, 'br')) {
      body = file.br
      headers['content-encoding'] = 'br'
    } else if (file.gzip && acceptsEncoding(acceptEncoding, 'gzip')) {
      body = file.gzip
      headers['content-encoding'] = 'gzip'
    }
    headers['content-length'] = String(body.length)
    return new Response(method === 'HEAD' ? null : body, { status: 200, headers })
  }

  #read(name: string): WebFile | undefined {
    const cached = this.#cache.get(name)
    if (cached) return cached
    const path = join(this.#root, name)
    if (!existsSync(path)) return undefined
    const optional = (p: string) => (existsSync(p) ? readFileSync(p) : undefined)
    let file: WebFile
    try {
      file = { bytes: readFileSync(path), br: optional(`${path}.br`), gzip: optional(`${path}.gz`) }
    } catch {
      return undefined
    }
    if (HASHED.test(name)) this.#cache.set(name, file)
    return file
  }
}
