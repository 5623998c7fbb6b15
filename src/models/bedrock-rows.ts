// The rows of the `bedrock` extension. The catalogue's `amazon-bedrock` provider lists every
// vendor Bedrock hosts (Llama, Nova, Mistral…), but hearth reaches Bedrock only through its
// Anthropic Messages route, so a bedrock listing shows the Claude models alone. The runtime
// endpoint mostly serves Claude through cross-region inference profiles, whose ids put a
// geography in front of the model id (`us.`, `eu.`, `apac.`, `global.`…): such an id reads
// the facts of the model it routes to, under its own id, with that model's cap_key.
import type { ModelInfo } from '../schemas/models.ts'
import type { CatalogueState } from './catalogue.ts'

export const BEDROCK = 'bedrock'

const CLAUDE = /(^|\.)anthropic\.claude-/
const GEOGRAPHY = /^[a-z]{2,8}(?:-[a-z]{2,8})?\.(?=anthropic\.claude-)/

/** Whether a Bedrock model id names a Claude model (with or without a geography). */
export function isBedrockClaude(id: string): boolean {
  return CLAUDE.test(id)
}

/** The listed rows a bedrock profile can use. */
export function bedrockRows(state: CatalogueState, provider: string): readonly ModelInfo[] {
  return state.rows(provider).filter((r) => isBedrockClaude(r.id))
}

/** The row of an inference-profile id (`us.anthropic.claude-…`) from its model's, or undefined. */
export function inferenceProfileRow(
  state: CatalogueState,
  provider: string,
  id: string,
): ModelInfo | undefined {
  const base = id.replace(GEOGRAPHY, '')
  if (base === id) return undefined
  const row = state.row(provider, base)
  return row ? { ...row, id } : undefined
}
