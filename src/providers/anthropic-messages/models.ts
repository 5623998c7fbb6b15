// What the Messages codec needs to know of a Claude model, read from its id: the output
// limit (`max_tokens` is required) and how thinking is asked for. Ids come in several
// spellings — `claude-sonnet-4-5-20250929`, `claude-opus-4-6`, `claude-3-7-sonnet-…`,
// Bedrock's `us.anthropic.claude-sonnet-4-5-20250929-v1:0` and `anthropic.claude-opus-4-6-v1`,
// Vertex's `claude-sonnet-4-5@20250929` — and all reduce to a family and a version.
//
// Facts (platform.claude.com models overview, extended and adaptive thinking, effort;
// Bedrock's "Adaptive thinking" page): adaptive thinking (`thinking: {type: "adaptive"}`,
// depth steered by `output_config.effort`) is taken by Opus and Sonnet 4.6 and every later
// model, and is the only mode of Opus 4.7, Mythos and Fable; a fixed `budget_tokens`
// (`{type: "enabled"}`, at least 1,024 and below `max_tokens`) is the mode of Claude 3.7
// Sonnet, Sonnet 4 and 4.5, Opus 4, 4.1 and 4.5 and Haiku 4.5. Older models do not think.

export type ThinkingMode = 'adaptive' | 'budget' | 'none'

export type Family = 'opus' | 'sonnet' | 'haiku' | 'mythos' | 'fable'

export interface ClaudeModel {
  family: Family
  /** major + minor / 10 (4.5, 3.7, 5); null for a version-less name (`mythos-preview`). */
  version: number | null
}

export interface ModelFacts {
  /** The model's largest `max_tokens`. */
  maxOutput: number
  thinking: ThinkingMode
  /** The top `output_config.effort` levels it takes besides low, medium and high. */
  xhigh: boolean
  max: boolean
}

/** Output limit assumed for an id that names no known family (an ARN, a custom name). */
export const FALLBACK_MAX_OUTPUT = 32_000

export function parseModel(id: string): ClaudeModel | null {
  const s = id.toLowerCase()
  // Claude 3 naming: version first (`claude-3-7-sonnet`, `claude-3-haiku`).
  const old = /claude-(\d)-(?:(\d)-)?(opus|sonnet|haiku)\b/.exec(s)
  if (old) return { family: old[3] as Family, version: Number(old[1]) + Number(old[2] ?? 0) / 10 }
  // Claude 4 naming: family first; a minor version has one or two digits (not a date).
  const m = /(opus|sonnet|haiku|mythos|fable)(?:-(\d{1,2})(?![0-9])(?:[-.](\d{1,2})(?![0-9]))?)?/.exec(s)
  if (!m) return null
  const version = m[2] === undefined ? null : Number(m[2]) + Number(m[3] ?? 0) / 10
  return { family: m[1] as Family, version }
}

export function modelFacts(id: string): ModelFacts {
  const model = parseModel(id)
  if (!model) return { maxOutput: FALLBACK_MAX_OUTPUT, thinking: 'none', xhigh: false, max: false }
  const v = model.version
  const at = (min: number) => v === null || v >= min
  switch (model.family) {
    case 'mythos':
    case 'fable':
      return { maxOutput: 64_000, thinking: 'adaptive', xhigh: v !== null && v >= 5, max: true }
    case 'opus':
      return {
        maxOutput: at(4.6) ? 128_000 : at(4.5) ? 64_000 : at(4) ? 32_000 : 4_096,
        thinking: at(4.6) ? 'adaptive' : at(4) ? 'budget' : 'none',
        xhigh: at(4.7),
        max: at(4.6),
      }
    case 'sonnet':
      return {
        maxOutput: at(3.7) ? 64_000 : at(3.5) ? 8_192 : 4_096,
        thinking: at(4.6) ? 'adaptive' : at(3.7) ? 'budget' : 'none',
        xhigh: at(5),
        max: at(4.6),
      }
    case 'haiku':
      return {
        maxOutput: at(4.5) ? 64_000 : at(3.5) ? 8_192 : 4_096,
        thinking: at(4.6) ? 'adaptive' : at(4.5) ? 'budget' : 'none',
        xhigh: false,
        max: false,
      }
  }
}
