// The Copilot model list as the daemon keeps it: HOME/cache/copilot-models.json, beside the
// catalogue's models.json, written in one atomic rename and read by stat stamp (a rewrite
// applies without a restart, a read costs one stat). One list per home: the one the last
// credential that listed models got (an account's, else the signed-in GitHub CLI's).
//
// Nothing fetches at start-up. A list older than COPILOT_MODELS_TTL_MS is stale: the next
// reader that holds a credential (a run, GET /models) lists the models again, a run in the
// background. A failed listing keeps the file as it is; a file that does not parse or has
// the wrong shape reads as no list.
import { mkdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import type { StoredCredential } from '../shared/sign-in-plugin.ts'
import { str } from '../shared/token-request.ts'
import { DIRECT_HEADERS, defaultApi, EXCHANGE_HEADERS } from './constants.ts'
import { type CopilotModel, type CopilotWire, listModels } from './models.ts'

/** How long a listed model set stays fresh: Copilot adds and retires models a few times a month. */
export const COPILOT_MODELS_TTL_MS = 60 * 60 * 1000
/** The longest one listing may take. */
const LIST_TIMEOUT_MS = 15_000

export interface CopilotModelList {
  /** Epoch ms of the listing. */
  fetchedAt: number
  models: readonly CopilotModel[]
}

export function copilotModelsPath(home: string): string {
  return join(home, 'cache', 'copilot-models.json')
}

const WIRES: readonly CopilotWire[] = ['responses', 'chat_completions']

/** One stored model, or null when any field has the wrong type. */
function storedModel(v: unknown): CopilotModel | null {
  if (typeof v !== 'object' || v === null) return null
  const m = v as Record<string, unknown>
  const numOrNull = (x: unknown) => x === null || (Number.isSafeInteger(x) && (x as number) > 0)
  const boolOrNull = (x: unknown) => x === null || typeof x === 'boolean'
  const ok =
    typeof m.id === 'string' &&
    m.id !== '' &&
    WIRES.includes(m.wire as CopilotWire) &&
    (m.name === null || typeof m.name === 'string') &&
    numOrNull(m.contextWindow) &&
    numOrNull(m.maxOutputTokens) &&
    boolOrNull(m.imageInput) &&
    boolOrNull(m.toolCalls) &&
    Array.isArray(m.efforts) &&
    m.efforts.every((e) => typeof e === 'string')
  return ok ? (m as unknown as CopilotModel) : null
}

/** The file's list, or null when it is not one (a broken file is passed over, never trusted). */
export function parseModelList(text: string): CopilotModelList | null {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return null
  }
  if (typeof value !== 'object' || value === null) return null
  const v = value as Record<string, unknown>
  if (v.version !== 1 || !Number.isSafeInteger(v.fetched_at) || !Array.isArray(v.models)) return null
  const models = v.models.map(storedModel)
  if (models.some((m) => m === null)) return null
  return { fetchedAt: v.fetched_at as number, models: models as CopilotModel[] }
}

/** Where a credential's listing goes: its API base, its token, the headers of its mode. */
export function modelsCallOf(credential: StoredCredential) {
  return {
    api: str(credential.api) ?? defaultApi(),
    token: String(credential.access ?? ''),
    headers: credential.mode === 'direct' ? DIRECT_HEADERS : EXCHANGE_HEADERS,
  }
}

export class CopilotModelCache {
  readonly path: string
  #read: { stamp: string; list: CopilotModelList | null } | undefined
  #inFlight: Promise<boolean> | undefined

  constructor(home: string) {
    this.path = copilotModelsPath(home)
  }

  /** The list on disk, or null (none, or not a list). Never fetches. */
  current(): CopilotModelList | null {
    let stamp: string
    try {
      const st = statSync(this.path)
      if (!st.isFile()) return null
      stamp = `${st.ino}:${st.size}:${st.mtimeMs}`
    } catch {
      this.#read = undefined
      return null
    }
    if (this.#read?.stamp !== stamp) {
      let list: CopilotModelList | null
      try {
        list = parseModelList(readFileSync(this.path, 'utf8'))
      } catch {
        list = null
      }
      this.#read = { stamp, list }
    }
    return this.#read.list
  }

  /** No list, or one older than the TTL. */
  stale(now = Date.now()): boolean {
    const list = this.current()
    return list === null || now - list.fetchedAt >= COPILOT_MODELS_TTL_MS || list.fetchedAt > now
  }

  /** The wire the list names for `model`, or null when it does not name the model. */
  wireOf(model: string): CopilotWire | null {
    return this.current()?.models.find((m) => m.id === model)?.wire ?? null
  }

  /**
   * Lists the models with `credential` and stores them; resolves whether it did. A failure
   * (unreachable, refused, not a list) leaves the file as it is. Listings at the same time
   * share one request.
   */
  refresh(credential: StoredCredential, signal?: AbortSignal): Promise<boolean> {
    this.#inFlight ??= this.#list(credential, signal).finally(() => {
      this.#inFlight = undefined
    })
    return this.#inFlight
  }

  /** Keeps the list but dates it stale, so the next reader with a credential lists again. */
  async expire(): Promise<void> {
    const list = this.current()
    if (list) await this.#write(0, list.models)
  }

  async #write(fetchedAt: number, models: readonly CopilotModel[]): Promise<void> {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 })
    const body = { version: 1, fetched_at: fetchedAt, models }
    await writeFileAtomic(this.path, `${JSON.stringify(body)}\n`, { mode: 0o600 })
  }

  async #list(credential: StoredCredential, signal?: AbortSignal): Promise<boolean> {
    const timeout = AbortSignal.timeout(LIST_TIMEOUT_MS)
    const bounded = signal ? AbortSignal.any([signal, timeout]) : timeout
    let result: Awaited<ReturnType<typeof listModels>>
    try {
      result = await listModels({ ...modelsCallOf(credential), fetch: globalThis.fetch, signal: bounded })
    } catch {
      return false // aborted or timed out
    }
    if (!result.ok) return false
    await this.#write(Date.now(), result.models)
    return true
  }
}

const caches = new Map<string, CopilotModelCache>()

/** The one cache of a home (its reads and its listing in flight are shared). */
export function copilotModelCache(home: string): CopilotModelCache {
  let cache = caches.get(home)
  if (!cache) {
    cache = new CopilotModelCache(home)
    caches.set(home, cache)
  }
  return cache
}
