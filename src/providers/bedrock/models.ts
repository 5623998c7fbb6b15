// The models of the `bedrock` extension. The catalogue's `amazon-bedrock` provider lists every
// vendor Bedrock hosts (Llama, Nova, Mistral…), but hearth reaches Bedrock only through its
// Anthropic Messages route, so a bedrock listing shows the Claude models alone. The runtime
// endpoint mostly serves Claude through cross-region inference profiles, whose ids put a
// geography in front of the model id (`us.`, `eu.`, `apac.`, `global.`…): such an id reads
// the facts of the model it routes to, under its own id, with that model's cap_key.

const CLAUDE = /(^|\.)anthropic\.claude-/
const GEOGRAPHY = /^[a-z]{2,8}(?:-[a-z]{2,8})?\.(?=anthropic\.claude-)/

/** Whether a Bedrock model id names a Claude model (with or without a geography). */
export function isBedrockClaude(id: string): boolean {
  return CLAUDE.test(id)
}

/** The model an inference-profile id (`us.anthropic.claude-…`) routes to, or null for another id. */
export function inferenceProfileModel(id: string): string | null {
  const base = id.replace(GEOGRAPHY, '')
  return base === id ? null : base
}
