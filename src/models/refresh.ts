// Refreshing the model catalogue the pickers read: downloads the public catalogue, checks its
// shape and writes it to HOME/cache/models.json in one atomic rename. Used by `hearth models
// refresh` and by a session's reload of `models`; the daemon notices the new file on its
// next catalogue read (it stats the file per request). A failure leaves the cache unchanged.
// A refresh also dates the providers' own model lists (Copilot's) stale: kept for use, they
// are listed again by the next run or listing that holds a credential.
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import { ensureHome } from '../home.ts'
import { PROVIDERS } from '../providers/registry.ts'
import { checkCatalogue, modelsCachePath } from './catalogue-shape.ts'

/** models.dev's api.json is a few MB; far more than that is not a catalogue. */
const MAX_BYTES = 64 * 1024 * 1024
const TIMEOUT_MS = 60_000

/** Why a refresh failed; its message names the URL and never a secret (the URL is public). */
export class RefreshError extends Error {}

export interface RefreshOutcome {
  providers: number
  models: number
  path: string
}

/** The body as text, refused once it passes MAX_BYTES (a wrong URL may stream forever). */
async function download(url: URL, timeoutMs: number): Promise<string> {
  let res: Response
  try {
    res = await fetch(url, {
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: 'application/json' },
    })
  } catch (err) {
    const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message
    throw new RefreshError(`cannot download ${url.href}: ${cause}`)
  }
  if (!res.ok || !res.body) throw new RefreshError(`${url.href} answered HTTP ${res.status}`)
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of res.body) {
    size += chunk.byteLength
    if (size > MAX_BYTES) throw new RefreshError(`${url.href} sent more than ${MAX_BYTES} bytes`)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

export async function refreshCatalogue(
  url: URL,
  home: string,
  timeoutMs = TIMEOUT_MS,
): Promise<RefreshOutcome> {
  const text = await download(url, timeoutMs)
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new RefreshError(`${url.href} did not send JSON; the model cache is unchanged`)
  }
  const check = checkCatalogue(value)
  if (!check.ok) {
    throw new RefreshError(
      `${url.href} is not a models.dev catalogue (${check.reason}); the model cache is unchanged`,
    )
  }
  const path = modelsCachePath(home)
  ensureHome(home)
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  // The bytes as downloaded: the cache stays the catalogue itself, not hearth's reading of it.
  await writeFileAtomic(path, text)
  for (const p of PROVIDERS) await p.catalogue.discover?.expire(home)
  return { providers: Object.keys(check.catalogue).length, models: check.models, path }
}
