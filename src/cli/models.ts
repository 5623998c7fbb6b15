// `hearth models refresh`: downloads the public model catalogue, checks its shape and writes
// it to HOME/cache/models.json in one atomic rename. The daemon notices the new file on its
// next /models request (it stats the file per request); no daemon is needed or started.
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import { ensureHome } from '../daemon/home.ts'
import { checkCatalogue, modelsCachePath } from '../models/catalogue-shape.ts'
import { readAllSettings } from '../settings/files.ts'
import { DEFAULT_CATALOGUE_URL, modelsSettings } from '../settings/groups/simple.ts'
import { homeOf, parseCommand } from './args.ts'
import { CommandError, type Out, UsageError } from './errors.ts'

/** models.dev's api.json is a few MB; far more than that is not a catalogue. */
const MAX_BYTES = 64 * 1024 * 1024
const TIMEOUT_MS = 60_000

function urlOf(value: string): URL {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new UsageError(`--url ${value} is not a URL`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UsageError('--url must be http or https')
  return url
}

/** The body as text, refused once it passes MAX_BYTES (a wrong URL may stream forever). */
async function download(url: URL): Promise<string> {
  let res: Response
  try {
    res = await fetch(url, {
      signal: AbortSignal.timeout(TIMEOUT_MS),
      headers: { accept: 'application/json' },
    })
  } catch (err) {
    const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message
    throw new CommandError(`cannot download ${url.href}: ${cause}`)
  }
  if (!res.ok || !res.body) throw new CommandError(`${url.href} answered HTTP ${res.status}`)
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of res.body) {
    size += chunk.byteLength
    if (size > MAX_BYTES) throw new CommandError(`${url.href} sent more than ${MAX_BYTES} bytes`)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

async function refresh(url: URL, home: string, out: Out): Promise<number> {
  const text = await download(url)
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new CommandError(`${url.href} did not send JSON; the model cache is unchanged`)
  }
  const check = checkCatalogue(value)
  if (!check.ok) {
    throw new CommandError(
      `${url.href} is not a models.dev catalogue (${check.reason}); the model cache is unchanged`,
    )
  }
  const path = modelsCachePath(home)
  ensureHome(home)
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  // The bytes as downloaded: the cache stays the catalogue itself, not hearth's reading of it.
  await writeFileAtomic(path, text)
  const providers = Object.keys(check.catalogue).length
  out.write(`saved ${providers} providers, ${check.models} models to ${path}\n`)
  return 0
}

export async function modelsCommand(args: string[], out: Out, help: string): Promise<number> {
  const parsed = parseCommand(
    args,
    {
      url: { type: 'string' },
    },
    out,
    help,
    true,
  )
  if (!parsed) return 0
  const { values, positionals } = parsed
  const [sub, extra] = positionals
  if (sub !== 'refresh')
    throw new UsageError(sub ? `unknown models command ${sub}` : 'hearth models needs refresh')
  if (extra !== undefined) throw new UsageError(`unexpected argument ${extra}`)
  const home = homeOf(values.home)
  return refresh(urlOf(values.url ?? configuredUrl(home)), home, out)
}

/** Settings `models.catalogue_url`, else the public default (config.json is public; no daemon needed). */
function configuredUrl(home: string): string {
  try {
    return modelsSettings(readAllSettings(home)).catalogue_url
  } catch {
    return DEFAULT_CATALOGUE_URL
  }
}
