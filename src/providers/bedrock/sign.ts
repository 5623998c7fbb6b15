// SigV4 signing of a bedrock request with the AWS SDK's own signer (`@smithy/signature-v4`),
// never a hand-written one; the test suite proves it against the official
// aws-signing-test-suite vectors. The signer takes its SHA-256 and HMAC from a constructor;
// Sha256 below gives it node:crypto's.
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto'
import { SignatureV4 } from '@smithy/signature-v4'
import type { AwsCredentials } from './credentials.ts'

type SourceData = string | ArrayBuffer | ArrayBufferView

function bytesOf(data: SourceData): Uint8Array | string {
  if (typeof data === 'string') return data
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
  return new Uint8Array(data)
}

/** SHA-256, or HMAC-SHA-256 when given a secret: the hash constructor the signer asks for. */
export class Sha256 {
  readonly #secret: SourceData | undefined
  #hash: Hash | Hmac

  constructor(secret?: SourceData) {
    this.#secret = secret
    this.#hash = this.#fresh()
  }

  #fresh(): Hash | Hmac {
    return this.#secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(this.#secret))
  }

  update(data: SourceData): void {
    this.#hash.update(bytesOf(data))
  }

  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.#hash.digest())
  }

  reset(): void {
    this.#hash = this.#fresh()
  }
}

export interface SignInput {
  url: string
  method: string
  headers: Record<string, string>
  body: string
}

export interface SignOptions {
  credentials: AwsCredentials
  region: string
  service: string
  /** The signing time (default now). */
  date?: Date
  /** Whether to send and sign `x-amz-content-sha256` (the SDK's default; default true). */
  applyChecksum?: boolean
}

/**
 * The headers to send: the given ones plus `x-amz-date`, `x-amz-security-token` (with a
 * session token), `x-amz-content-sha256` and `authorization`. Every header sent is signed,
 * `host` included (taken from the URL, as the HTTP client will send it).
 */
export async function signedHeaders(req: SignInput, opts: SignOptions): Promise<Record<string, string>> {
  const url = new URL(req.url)
  const signer = new SignatureV4({
    credentials: opts.credentials,
    region: opts.region,
    service: opts.service,
    sha256: Sha256,
    applyChecksum: opts.applyChecksum ?? true,
  })
  const query: Record<string, string | string[]> = {}
  for (const [key, value] of url.searchParams) {
    const had = query[key]
    query[key] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value]
  }
  const signed = await signer.sign(
    {
      method: req.method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port ? Number(url.port) : undefined,
      path: url.pathname,
      query,
      headers: { ...req.headers, host: url.host },
      body: req.body,
    },
    { signingDate: opts.date ?? new Date() },
  )
  return signed.headers as Record<string, string>
}
