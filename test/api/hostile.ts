// Bad input for every operation, derived from the route table alone (op.params, op.query,
// op.body, op.bodyLimit), so a route added later is covered without touching this file.
// hostile.test.ts runs the cases against a real daemon; http-core.test.ts reuses the helpers.
import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import zlib from 'node:zlib'
import type { TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import { v4 as uuidv4, v7 as uuidv7 } from 'uuid'
import { DEFAULT_BODY_LIMIT, UUIDV7_PATTERN } from '../../src/schemas/common.ts'
import type { OpSpec } from '../../src/schemas/op.ts'
import type { RawResponse, TestDaemon } from '../helpers/daemon.ts'

export const PROBLEM_BASE = 'https://hearth.dev/problems/'

// ---- Sending ----------------------------------------------------------------------------

export interface HostileRequest {
  method: string
  path: string
  headers?: Record<string, string>
  /** Leave out Authorization. */
  noAuth?: boolean
  /** Replace the Host header (default: the daemon's own host:port); given the daemon's port. */
  host?: (port: number) => string
  body?: string | Buffer
  /**
   * Stream `bytes` filler bytes instead of `body`: chunked, or with a declared
   * Content-Length. Writing stops as soon as the response arrives.
   */
  flood?: { bytes: number; declareLength: boolean }
}

/** One request on a fresh connection, every header under the test's control. */
export function send(d: TestDaemon, r: HostileRequest): Promise<RawResponse> {
  const headers: Record<string, string> = { host: r.host?.(d.port) ?? new URL(d.url).host, ...r.headers }
  if (!r.noAuth && headers.authorization === undefined) headers.authorization = `Bearer ${d.token}`
  // Node frames a GET body only when told its length.
  if (r.body !== undefined) headers['content-length'] = String(Buffer.byteLength(r.body))
  if (r.flood) {
    if (r.flood.declareLength) headers['content-length'] = String(r.flood.bytes)
    else headers['transfer-encoding'] = 'chunked'
  }
  const hostname = new URL(d.url).hostname.replace(/^\[|\]$/g, '')
  return new Promise((resolve, reject) => {
    let responded = false
    const req = httpRequest(
      { host: hostname, port: d.port, method: r.method, path: r.path, headers, setHost: false, agent: false },
      (res) => {
        responded = true
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('error', reject)
        res.on('end', () => {
          const body = Buffer.concat(chunks)
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            text: () => body.toString('utf8'),
            json: () => JSON.parse(body.toString('utf8')),
          })
          req.destroy()
        })
      },
    )
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (responded) return
      // A server may answer 413 and close while a large body is still being written: the
      // write fails (EPIPE, ECONNRESET) though the answer is on its way. Give it a moment.
      if (r.flood && (err.code === 'EPIPE' || err.code === 'ECONNRESET')) setTimeout(() => reject(err), 2000)
      else reject(err)
    })
    if (!r.flood) {
      req.end(r.body)
      return
    }
    const total = r.flood.bytes
    const chunk = Buffer.alloc(Math.min(64 * 1024, total), 'x')
    let sent = 0
    const pump = () => {
      while (!responded && !req.destroyed && sent < total) {
        const n = Math.min(chunk.length, total - sent)
        sent += n
        if (!req.write(chunk.subarray(0, n))) {
          req.once('drain', pump)
          return
        }
      }
      if (!responded && !req.destroyed) req.end()
    }
    pump()
  })
}

/** Asserts a problem+json answer with the given status and code; returns the problem. */
export function assertProblem(
  res: RawResponse,
  status: number,
  code: string,
  what = '',
): Record<string, unknown> {
  const where = `${what}: ${res.status} ${res.text().slice(0, 300)}`
  assert.equal(res.status, status, where)
  assert.equal(String(res.headers['content-type']).split(';')[0], 'application/problem+json', where)
  const p = res.json()
  assert.equal(p.code, code, where)
  assert.equal(p.type, PROBLEM_BASE + code, where)
  assert.equal(p.status, status, where)
  assert.equal(typeof p.title, 'string', where)
  assert.ok(p.title.length > 0, where)
  assert.equal(typeof p.detail, 'string', where)
  assert.ok(p.detail.length > 0, where)
  return p
}

// ---- Valid examples from schemas ----------------------------------------------------------

type Json = Record<string, any>

/** Whether the value satisfies the schema, exactly as the daemon's validator decides. */
export function valid(schema: TSchema, value: unknown): boolean {
  return Compile(schema).Check(value)
}

function isUuidV7(s: Json): boolean {
  return s['x-problem'] === 'invalid_id' || s.pattern === UUIDV7_PATTERN
}

/**
 * A value the schema accepts. `full` fills optional properties too (so nested objects show
 * up); otherwise only required ones. Throws for a schema it cannot satisfy, so a new kind of
 * schema makes the hostile test fail loudly instead of skipping cases.
 */
export function exampleOf(schema: TSchema, full = false): unknown {
  const s = schema as Json
  if ('const' in s) return s.const
  if (s.default !== undefined) return s.default
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0]
  if (Array.isArray(s.enum)) return s.enum[0]
  const members = (s.anyOf ?? s.oneOf) as TSchema[] | undefined
  if (members) {
    const nonNull = members.filter((m) => (m as Json).type !== 'null')
    return exampleOf(nonNull[0] ?? members[0], full)
  }
  switch (s.type) {
    case 'object': {
      const out: Json = {}
      const required = new Set<string>(s.required ?? [])
      for (const [name, prop] of Object.entries((s.properties ?? {}) as Record<string, TSchema>)) {
        if (full || required.has(name)) out[name] = exampleOf(prop, full)
      }
      return out
    }
    case 'array':
      return Array.from({ length: s.minItems ?? 0 }, () => exampleOf(s.items, full))
    case 'string':
      if (isUuidV7(s)) return uuidv7()
      if (s.format === 'date-time') return new Date(0).toISOString()
      if (s.pattern !== undefined) throw new Error(`no example for pattern ${s.pattern}`)
      return s.format === 'uri' ? 'http://127.0.0.1/' : 'x'.repeat(Math.max(1, s.minLength ?? 1))
    case 'integer':
    case 'number':
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1)
    case 'boolean':
      return false
    case 'null':
      return null
    case undefined:
      return null // Type.Unknown
    default:
      throw new Error(`no example for schema type ${s.type}`)
  }
}

/** A full example when the schema takes one, else a minimal one; asserts it is valid. */
export function validExample(schema: TSchema, what: string): Json {
  for (const full of [true, false]) {
    const v = exampleOf(schema, full)
    if (valid(schema, v)) return v as Json
  }
  assert.fail(`${what}: cannot build a valid example; teach exampleOf this schema`)
}

/** The union member a discriminated body uses for its example, or the schema itself. */
export function memberOf(schema: TSchema, value: Json): Json {
  const s = schema as Json
  const prop = s.discriminator?.propertyName
  const members = (s.anyOf ?? s.oneOf) as Json[] | undefined
  if (!members || !prop) return s
  return members.find((m) => m.properties?.[prop]?.const === value[prop]) ?? s
}

export function pathParams(op: OpSpec): Record<string, string> {
  if (!op.params) return {}
  return validExample(op.params, `${op.method} ${op.path} params`) as Record<string, string>
}

export function fillPath(path: string, params: Record<string, string>): string {
  return path.replace(/\{([a-z_]+)\}/g, (_, name: string) => encodeURIComponent(params[name]))
}

function searchOf(q: Json): URLSearchParams {
  return new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)]))
}

function queryString(q: Json): string {
  const s = searchOf(q).toString()
  return s ? `?${s}` : ''
}

/** The required query parameters with valid values ({} when none are required). */
export function minimalQuery(op: OpSpec): Json {
  if (!op.query) return {}
  const q = exampleOf(op.query, false) as Json
  assert.ok(valid(op.query, q), `${op.method} ${op.path}: cannot build a valid query`)
  return q
}

// ---- zstd frames --------------------------------------------------------------------------

const ZSTD_MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd])
/** A last raw block of one byte: header (last=1, type=raw, size=1) then the byte. */
const ONE_RAW_BLOCK = Buffer.from([0x09, 0x00, 0x00, 0x7b])

/** A frame header declaring `size` decoded bytes in an 8-byte field (single segment). */
export function frameDeclaring(size: bigint): Buffer {
  const fcs = Buffer.alloc(8)
  fcs.writeBigUInt64LE(size)
  return Buffer.concat([ZSTD_MAGIC, Buffer.from([0xe0]), fcs, ONE_RAW_BLOCK])
}

/** A multi-segment frame whose window descriptor asks for (1 + mantissa/8) · 2^(10+exponent). */
export function frameWithWindow(exponent: number, mantissa: number, contentSize = 1): Buffer {
  const fcs = Buffer.alloc(4)
  fcs.writeUInt32LE(contentSize)
  return Buffer.concat([ZSTD_MAGIC, Buffer.from([0x80, (exponent << 3) | mantissa]), fcs, ONE_RAW_BLOCK])
}

const bombs = new Map<number, Buffer>()
/** A real frame of zeros that decodes to `size` bytes (declared in its header); tiny on the wire. */
export function zeroBomb(size: number): Buffer {
  let b = bombs.get(size)
  if (!b) {
    b = zlib.zstdCompressSync(Buffer.alloc(size))
    bombs.set(size, b)
  }
  return b
}

/** A valid frame of `text` that does not declare its decoded size. */
export function undeclaredFrame(text: string): Buffer {
  return zlib.zstdCompressSync(Buffer.from(text), { params: { [zlib.constants.ZSTD_c_contentSizeFlag]: 0 } })
}

// ---- Cases ------------------------------------------------------------------------------

export interface Expect {
  status: number
  code: string
  /** Text the problem detail must contain (a JSON pointer, a parameter name). */
  detail?: string
  /** Response headers that must match. */
  headers?: Record<string, RegExp>
}

export interface HostileCase {
  name: string
  request: HostileRequest
  expect: Expect
}

function pointer(path: readonly string[]): string {
  return path.map((k) => `/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('')
}

/**
 * Serializes `value` with the first key of the object at path `at` written twice (an empty
 * object gets a key "dup" twice); returns the text and the pointer of the repeated key.
 */
export function withDuplicate(value: Json, at: readonly string[]): { text: string; pointer: string } {
  const target = at.reduce<Json>((o, k) => o[k], value)
  const [key, first] = Object.entries(target)[0] ?? ['dup', 1]
  const write = (v: Json, path: readonly string[]): string => {
    const members = Object.entries(v).map(
      ([k, x]) =>
        `${JSON.stringify(k)}:${path.length > 0 && k === path[0] ? write(x, path.slice(1)) : JSON.stringify(x)}`,
    )
    if (path.length === 0) {
      members.unshift(`${JSON.stringify(key)}:${JSON.stringify(first)}`)
      if (members.length === 1) members.push(members[0])
    }
    return `{${members.join(',')}}`
  }
  return { text: write(value, at), pointer: pointer([...at, key]) }
}

/** Paths (property names) of the object-valued members of an example, with their schemas. */
function nestedObjects(schema: Json, value: Json): { path: string[]; schema: Json }[] {
  const out: { path: string[]; schema: Json }[] = []
  for (const [name, prop] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
    const v = value[name]
    if (v === null || typeof v !== 'object' || Array.isArray(v)) continue
    const member = (prop.anyOf ?? prop.oneOf)?.find((m: Json) => m.type === 'object') ?? prop
    out.push({ path: [name], schema: member })
  }
  return out
}

/** A JSON value of a different type than the schema admits, or undefined if it admits all. */
function wrongValueFor(schema: TSchema): unknown {
  return [12345, 'wrong-type', true, [1]].find((v) => !valid(schema, v))
}

const UNKNOWN = 'hostile_extra'

export function hostileCases(op: OpSpec): HostileCase[] {
  const params = pathParams(op)
  const query = minimalQuery(op)
  const path = fillPath(op.path, params) + queryString(query)
  const method = op.method
  const limit = op.bodyLimit ?? DEFAULT_BODY_LIMIT
  const json = { 'content-type': op.bodyMediaType ?? 'application/json' }
  const cases: HostileCase[] = []
  const add = (name: string, request: Omit<HostileRequest, 'method'>, expect: Expect) =>
    cases.push({ name, request: { method, ...request }, expect })
  // A path that passes every guard but is stopped before the handler (unknown parameter).
  const stopped = fillPath(op.path, params) + queryString({ ...query, [UNKNOWN]: '1' })

  // Access guards.
  const unauthorized = { status: 401, code: 'unauthorized', headers: { 'www-authenticate': /^Bearer\b/ } }
  add('no token', { path, noAuth: true }, unauthorized)
  add(
    'wrong token',
    { path, headers: { authorization: 'Bearer AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' } },
    unauthorized,
  )
  add('token in the wrong scheme', { path, headers: { authorization: 'Basic Zm9vOmJhcg==' } }, unauthorized)
  const hostNotAllowed = { status: 403, code: 'host_not_allowed' }
  add('foreign Host', { path, host: (port) => `evil.example:${port}` }, hostNotAllowed)
  add(
    'loopback Host, wrong port',
    { path, host: (port) => `127.0.0.1:${port === 65535 ? 1 : port + 1}` },
    hostNotAllowed,
  )
  add('Host without port', { path, host: () => 'localhost' }, hostNotAllowed)
  add(
    'loopback-looking foreign Host',
    { path, host: (port) => `localhost.evil.example:${port}` },
    hostNotAllowed,
  )
  add(
    'foreign Origin',
    { path, headers: { origin: 'http://evil.example' } },
    { status: 403, code: 'origin_not_allowed' },
  )
  add('Origin null', { path, headers: { origin: 'null' } }, { status: 403, code: 'origin_not_allowed' })
  add(
    'loopback Origin passes the guard',
    { path: stopped, headers: { origin: 'http://localhost:5173' } },
    {
      status: 400,
      code: 'unknown_parameter',
    },
  )

  // Query parameters.
  add(
    'unknown query parameter',
    { path: stopped },
    { status: 400, code: 'unknown_parameter', detail: UNKNOWN },
  )
  const known = op.query ? Object.entries(exampleOf(op.query, true) as Json)[0] : undefined
  const [dupName, dupValue] = known ?? ['x', '1']
  const dupQuery = searchOf(query)
  if (!dupQuery.has(dupName)) dupQuery.append(dupName, String(dupValue))
  dupQuery.append(dupName, String(dupValue))
  add(
    'repeated query parameter',
    { path: `${fillPath(op.path, params)}?${dupQuery}` },
    {
      status: 400,
      code: 'duplicate_parameter',
      detail: dupName,
    },
  )

  // Path identifiers.
  for (const [name, schema] of Object.entries((op.params?.properties ?? {}) as Record<string, Json>)) {
    if (schema['x-problem'] !== 'invalid_id') continue
    for (const [label, bad] of [
      ['not a UUID', 'not-a-uuid'],
      ['a UUIDv4', uuidv4()],
      ['a UUIDv7 with trailing junk', `${uuidv7()}x`],
    ]) {
      add(
        `${name} is ${label}`,
        { path: fillPath(op.path, { ...params, [name]: bad }) + queryString(query) },
        {
          status: 400,
          code: 'invalid_id',
          detail: name,
        },
      )
    }
  }

  // Body size and coding: every op reads (and bounds) a body, whether it takes one or not.
  const tooLarge = { status: 413, code: 'body_too_large' }
  const over = limit + 6 * 1024 // 70 KiB for the 64 KiB default
  add(
    `${over}-byte body with Content-Length`,
    { path, headers: json, flood: { bytes: over, declareLength: true } },
    tooLarge,
  )
  add(
    `${over}-byte body, chunked`,
    { path, headers: json, flood: { bytes: over, declareLength: false } },
    tooLarge,
  )
  const zstd = { ...json, 'content-encoding': 'zstd' }
  add('zstd bomb (real frame)', { path, headers: zstd, body: zeroBomb(limit + 1024 * 1024) }, tooLarge)
  add('zstd frame declaring 2^40 bytes', { path, headers: zstd, body: frameDeclaring(2n ** 40n) }, tooLarge)
  add(
    'zstd frame declaring 2^64-1 bytes',
    { path, headers: zstd, body: frameDeclaring(2n ** 64n - 1n) },
    tooLarge,
  )
  add(
    'zstd frame without a declared size',
    { path, headers: zstd, body: undeclaredFrame('{}') },
    {
      status: 400,
      code: 'zstd_size_undeclared',
    },
  )
  add(
    'zstd frame with a 2^28 window',
    { path, headers: zstd, body: frameWithWindow(18, 0) },
    {
      status: 400,
      code: 'zstd_window_too_large',
    },
  )
  add(
    'zstd frame with a 1.875·2^27 window',
    { path, headers: zstd, body: frameWithWindow(17, 7) },
    {
      status: 400,
      code: 'zstd_window_too_large',
    },
  )
  add(
    'zstd frame with a 2^41 window',
    { path, headers: zstd, body: frameWithWindow(31, 0) },
    {
      status: 400,
      code: 'zstd_window_too_large',
    },
  )
  add(
    'not a zstd frame',
    { path, headers: zstd, body: '{"instance_id":"x"}' },
    { status: 400, code: 'zstd_invalid' },
  )
  // Single segment with a 2-byte size field (value + 256): rewrite it to declare 266 bytes.
  const lying = zlib.zstdCompressSync(Buffer.alloc(4096, 'a'))
  assert.equal(lying[4], 0x60, 'frame header descriptor of a 4 KiB frame')
  lying.writeUInt16LE(10, 5)
  add(
    'zstd frame decoding past its declared size',
    { path, headers: zstd, body: lying },
    {
      status: 400,
      code: 'zstd_invalid',
    },
  )
  const truncated = zlib.zstdCompressSync(Buffer.from(JSON.stringify({ a: 'b'.repeat(500) })))
  add(
    'truncated zstd frame',
    { path, headers: zstd, body: truncated.subarray(0, truncated.length - 4) },
    {
      status: 400,
      code: 'zstd_invalid',
    },
  )
  const oneFrame = zlib.zstdCompressSync(Buffer.from('{}'))
  add(
    'zstd frame followed by a second frame',
    { path, headers: zstd, body: Buffer.concat([oneFrame, oneFrame]) },
    {
      status: 400,
      code: 'zstd_invalid',
    },
  )
  add(
    'gzip body',
    { path, headers: { ...json, 'content-encoding': 'gzip' }, body: zlib.gzipSync('{}') },
    {
      status: 415,
      code: 'unsupported_content_encoding',
    },
  )

  if (!op.body) {
    add(
      'a body where none is taken',
      { path, headers: json, body: '{}' },
      { status: 400, code: 'unexpected_body' },
    )
    return cases
  }

  // Request bodies.
  const example = validExample(op.body, `${method} ${op.path} body`)
  const member = memberOf(op.body, example)
  const post = (
    name: string,
    body: string | Buffer,
    expect: Expect,
    headers: Record<string, string> = json,
  ) => add(name, { path, headers, body }, expect)

  post('unknown field', JSON.stringify({ ...example, [UNKNOWN]: 1 }), {
    status: 400,
    code: 'unknown_field',
    detail: `/${UNKNOWN}`,
  })
  const nested = nestedObjects(member, example)
  const closed = nested.find((n) => n.schema.type === 'object' && n.schema.additionalProperties === false)
  if (closed) {
    const value = structuredClone(example)
    value[closed.path[0]][UNKNOWN] = 1
    post('unknown nested field', JSON.stringify(value), {
      status: 400,
      code: 'unknown_field',
      detail: pointer([closed.path[0], UNKNOWN]),
    })
  }
  const top = withDuplicate(example, [])
  post('duplicate key', top.text, { status: 400, code: 'duplicate_key', detail: top.pointer })
  const inner = nested[0] ?? { path: ['hostile_nested'] }
  const withInner = nested[0] ? example : { ...example, hostile_nested: { a: 1 } }
  const deep = withDuplicate(withInner, inner.path)
  post('duplicate nested key', deep.text, { status: 400, code: 'duplicate_key', detail: deep.pointer })
  post('duplicate escaped key', `{"a\\u0062":1,"ab":2}`, {
    status: 400,
    code: 'duplicate_key',
    detail: '/ab',
  })
  post('body of the wrong type', '[]', { status: 400, code: 'invalid_request' })
  const discriminator = (op.body as Json).discriminator?.propertyName
  for (const [name, prop] of Object.entries((member.properties ?? {}) as Record<string, TSchema>)) {
    const wrong = wrongValueFor(prop)
    if (name === discriminator || wrong === undefined) continue
    post(`field ${name} of the wrong type`, JSON.stringify({ ...example, [name]: wrong }), {
      status: 400,
      code: 'invalid_request',
      detail: `/${name}`,
    })
  }
  post('malformed JSON', '{"a":', { status: 400, code: 'malformed_json' })
  post('trailing garbage after JSON', `${JSON.stringify(example)} x`, { status: 400, code: 'malformed_json' })
  post('invalid UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), {
    status: 400,
    code: 'malformed_json',
  })
  const depth = Math.min(10_000, Math.floor(limit / 2) - 1)
  post(`arrays nested ${depth} deep`, '['.repeat(depth) + ']'.repeat(depth), {
    status: 400,
    code: 'malformed_json',
  })
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
    post(
      `Content-Type ${type}`,
      JSON.stringify(example),
      { status: 415, code: 'unsupported_media_type' },
      {
        'content-type': type,
      },
    )
  }
  return cases
}
