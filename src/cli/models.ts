// `hearth models refresh`: downloads the public model catalogue, checks its shape and writes
// it to HOME/cache/models.json in one atomic rename. The daemon notices the new file on its
// next /models request (it stats the file per request); no daemon is needed or started.
import { homeOf, parseCommand } from '../command-line/args.ts'
import { CommandError, type Out, UsageError } from '../command-line/errors.ts'
import { RefreshError, refreshCatalogue } from '../models/refresh.ts'
import { readAllSettings } from '../settings/files.ts'
import { DEFAULT_CATALOGUE_URL, modelsSettings } from '../settings/groups/simple.ts'

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

async function refresh(url: URL, home: string, out: Out): Promise<number> {
  try {
    const r = await refreshCatalogue(url, home)
    out.write(`saved ${r.providers} providers, ${r.models} models to ${r.path}\n`)
    return 0
  } catch (err) {
    if (err instanceof RefreshError) throw new CommandError(err.message)
    throw err
  }
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
