// Successful JSON responses: serialized once, zstd-coded when the client admits it and the
// body is at least 1 KiB (smaller bodies gain nothing from a frame header).
import { zlib } from '../util/lazy-builtins.ts'
import { acceptsZstd } from './negotiate.ts'

export const COMPRESS_MIN_BYTES = 1024

export function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string>,
  acceptEncoding: string | undefined,
): Response {
  const out: Record<string, string> = { ...headers }
  appendVary(out, 'Accept-Encoding')
  if (body === undefined || status === 204 || status === 304)
    return new Response(null, { status, headers: out })
  return jsonTextResponse(status, JSON.stringify(body), out, acceptEncoding)
}

/**
 * jsonResponse for a body already serialized: a handler that serialized its items to keep
 * the body within a size limit hands the text over rather than have it serialized twice.
 */
export function jsonTextResponse(
  status: number,
  text: string,
  headers: Record<string, string>,
  acceptEncoding: string | undefined,
): Response {
  const out: Record<string, string> = { ...headers }
  appendVary(out, 'Accept-Encoding')
  out['content-type'] = 'application/json'
  const bytes = Buffer.from(text)
  if (bytes.length >= COMPRESS_MIN_BYTES && acceptsZstd(acceptEncoding)) {
    const coded = zlib().zstdCompressSync(bytes, {
      params: { [zlib().constants.ZSTD_c_compressionLevel]: 3 },
    })
    out['content-encoding'] = 'zstd'
    return new Response(coded, { status, headers: out })
  }
  return new Response(bytes, { status, headers: out })
}

export function appendVary(headers: Record<string, string>, name: string): void {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === 'vary')
  if (!key) {
    headers.vary = name
    return
  }
  const parts = headers[key].split(',').map((s) => s.trim().toLowerCase())
  if (!parts.includes(name.toLowerCase())) headers[key] = `${headers[key]}, ${name}`
}
