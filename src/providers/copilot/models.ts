// Copilot's model list (`GET {api}/models`) and the wire each model is served on. An item
// names its routes in `supported_endpoints`; opencode reads them in the order Messages,
// Responses, Chat Completions. hearth speaks Responses and Chat Completions here, so a
// Messages-only model is left out; an item naming no routes is a Chat Completions model.
import { describe } from '../shared/errors.ts'

export type CopilotWire = 'responses' | 'chat_completions'

export interface CopilotModel {
  id: string
  wire: CopilotWire
  /** `name`, or null. */
  name: string | null
  /** `capabilities.limits.max_context_window_tokens`, or null. */
  contextWindow: number | null
  /** `capabilities.limits.max_output_tokens`, or null. */
  maxOutputTokens: number | null
  /** `capabilities.supports.vision`, or null when the item does not say. */
  imageInput: boolean | null
  /** `capabilities.supports.tool_calls`, or null when the item does not say. */
  toolCalls: boolean | null
  /** `capabilities.supports.reasoning_effort`, empty when the model takes none. */
  efforts: string[]
}

export interface ModelsCall {
  api: string
  token: string
  headers: Readonly<Record<string, string>>
  fetch: typeof globalThis.fetch
  signal: AbortSignal
}

export type ModelsResult =
  | { ok: true; models: CopilotModel[] }
  | { ok: false; status: number | null; message: string }

/** The wire of one `/models` item, or null when hearth cannot reach it (or it is disabled). */
export function wireOf(item: Record<string, unknown>): CopilotWire | null {
  const policy = item.policy as { state?: unknown } | undefined
  if (policy?.state === 'disabled') return null
  const routes = item.supported_endpoints
  if (!Array.isArray(routes)) return 'chat_completions'
  if (routes.includes('/responses')) return 'responses'
  if (routes.includes('/chat/completions')) return 'chat_completions'
  return null
}

export function modelOf(item: unknown): CopilotModel | null {
  if (typeof item !== 'object' || item === null) return null
  const it = item as Record<string, any>
  if (typeof it.id !== 'string' || it.id === '') return null
  const wire = wireOf(it)
  if (!wire) return null
  const limits = it.capabilities?.limits ?? {}
  const supports = it.capabilities?.supports ?? {}
  const efforts = supports.reasoning_effort
  return {
    id: it.id,
    wire,
    name: typeof it.name === 'string' && it.name !== '' ? it.name : null,
    contextWindow: count(limits.max_context_window_tokens),
    maxOutputTokens: count(limits.max_output_tokens),
    imageInput: typeof supports.vision === 'boolean' ? supports.vision : null,
    toolCalls: typeof supports.tool_calls === 'boolean' ? supports.tool_calls : null,
    efforts: Array.isArray(efforts) ? efforts.filter((e): e is string => typeof e === 'string') : [],
  }
}

const count = (v: unknown): number | null =>
  Number.isSafeInteger(v) && (v as number) > 0 ? (v as number) : null

/**
 * The wire of a model no cached list names, by its name, as opencode routes Copilot models:
 * `gpt-<n>` with n ≥ 5 on Responses (Copilot serves its newest OpenAI models there only),
 * except `gpt-5-mini`; every other model (Claude, Gemini, GPT-4.1, o-series) on Chat
 * Completions.
 */
export function wireByName(model: string): CopilotWire {
  const major = /^gpt-(\d+)/.exec(model)
  return major && Number(major[1]) >= 5 && !model.startsWith('gpt-5-mini') ? 'responses' : 'chat_completions'
}

/** Lists the account's models. Never throws but on abort; the token never appears in a message. */
export async function listModels(call: ModelsCall): Promise<ModelsResult> {
  let res: Response
  let text: string
  try {
    res = await call.fetch(`${call.api}/models`, {
      headers: { ...call.headers, accept: 'application/json', authorization: `Bearer ${call.token}` },
      signal: call.signal,
    })
    text = await res.text()
  } catch (err) {
    if (call.signal.aborted) throw err
    return {
      ok: false,
      status: null,
      message: `could not reach Copilot: ${describe(err)}`.split(call.token).join('[redacted]'),
    }
  }
  if (!res.ok)
    return { ok: false, status: res.status, message: `Copilot /models answered HTTP ${res.status}` }
  let data: unknown
  try {
    data = (JSON.parse(text) as { data?: unknown }).data
  } catch {
    data = undefined
  }
  if (!Array.isArray(data))
    return { ok: false, status: res.status, message: 'Copilot /models answered without a data list' }
  return { ok: true, models: data.map(modelOf).filter((m): m is CopilotModel => m !== null) }
}
