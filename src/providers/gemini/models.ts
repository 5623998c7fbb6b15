// What the Gemini codec needs to know of a model, read from its id: how a reasoning effort
// is asked for. Gemini 2.5 models take a token budget (`thinkingConfig.thinkingBudget`),
// Gemini 3 models a level (`thinkingConfig.thinkingLevel`); sending both is a 400, and each
// model takes only some levels and budget ranges. An effort the model cannot take fails
// here, before any request, rather than as the upstream's 400.
//
// Facts (cloud.google.com/vertex-ai/generative-ai/docs/thinking, ai.google.dev thinking
// docs): 2.5 Pro budgets 128–32,768 and cannot turn thinking off; 2.5 Flash 0–24,576;
// 2.5 Flash-Lite 512–24,576. Gemini 3 Pro takes LOW and HIGH, 3.1 Pro adds MEDIUM; the
// Flash and Flash-Lite models take MINIMAL, LOW, MEDIUM and HIGH. No model takes an
// effort above HIGH.

export type GeminiFamily = 'gemini-2.5' | 'gemini-3'

export interface GeminiModel {
  family: GeminiFamily
  /** The tier after the version: `pro`, `flash`, `flash-lite` (others read as `flash`). */
  tier: 'pro' | 'flash' | 'flash-lite'
  /** major + minor / 10 (2.5, 3, 3.1). */
  version: number
}

/** `thinkingConfig` for an effort: exactly one of the two settings, thoughts included. */
export type ThinkingConfig =
  | { thinkingBudget: number; includeThoughts: true }
  | { thinkingLevel: 'MINIMAL' | 'LOW' | 'MEDIUM' | 'HIGH'; includeThoughts: true }

/** Gemini 2.5 budgets per effort and tier; an effort missing from a row is not taken. */
export const THINKING_BUDGETS: Readonly<Record<GeminiModel['tier'], Readonly<Record<string, number>>>> = {
  pro: { minimal: 128, low: 2_048, medium: 8_192, high: 32_768 },
  flash: { minimal: 512, low: 2_048, medium: 8_192, high: 24_576 },
  'flash-lite': { minimal: 512, low: 2_048, medium: 8_192, high: 24_576 },
}

type Level = 'MINIMAL' | 'LOW' | 'MEDIUM' | 'HIGH'
const ALL_LEVELS: Readonly<Record<string, Level>> = {
  minimal: 'MINIMAL',
  low: 'LOW',
  medium: 'MEDIUM',
  high: 'HIGH',
}

/** The Gemini 3 levels a model takes, per effort. */
export function thinkingLevels(model: GeminiModel): Readonly<Record<string, Level>> {
  if (model.tier !== 'pro') return ALL_LEVELS
  if (model.version >= 3.1) return { low: 'LOW', medium: 'MEDIUM', high: 'HIGH' }
  return { low: 'LOW', high: 'HIGH' }
}

/**
 * The family, tier and version of a Gemini model id in any of its spellings
 * (`gemini-2.5-flash`, `gemini-3.1-pro-preview`, `models/gemini-3-flash-preview`,
 * `publishers/google/models/gemini-2.5-pro@001`); null for any other model.
 */
export function parseGeminiModel(id: string): GeminiModel | null {
  const m = /(?:^|\/)gemini-(\d+)(?:\.(\d+))?-(pro|flash-lite|flash)?/.exec(id.toLowerCase())
  if (!m) return null
  const version = Number(m[1]) + Number(m[2] ?? 0) / 10
  const tier = (m[3] ?? 'flash') as GeminiModel['tier']
  if (version >= 2.5 && version < 3) return { family: 'gemini-2.5', tier, version }
  if (version >= 3 && version < 4) return { family: 'gemini-3', tier, version }
  return null
}

/** An effort this model cannot take; the message says what it takes instead. */
export class EffortError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'EffortError'
  }
}

/**
 * The `thinkingConfig` for an effort, null for no effort (the model's default: nothing
 * is sent). Throws EffortError for a model outside the two families or an effort its row
 * of the table does not have.
 */
export function thinkingConfigFor(modelId: string, effort: string | null): ThinkingConfig | null {
  if (effort === null || effort === '') return null
  const model = parseGeminiModel(modelId)
  if (!model) {
    throw new EffortError(
      `model ${modelId} takes no reasoning effort (only gemini-2.5-* and gemini-3* models do); choose no effort`,
    )
  }
  if (model.family === 'gemini-2.5') {
    const budgets = THINKING_BUDGETS[model.tier]
    const budget = budgets[effort]
    if (budget === undefined) throw notTaken(modelId, effort, Object.keys(budgets))
    return { thinkingBudget: budget, includeThoughts: true }
  }
  const levels = thinkingLevels(model)
  const level = levels[effort]
  if (level === undefined) throw notTaken(modelId, effort, Object.keys(levels))
  return { thinkingLevel: level, includeThoughts: true }
}

function notTaken(modelId: string, effort: string, taken: string[]): EffortError {
  return new EffortError(
    `model ${modelId} does not take reasoning effort ${effort}; it takes ${taken.join(', ')}`,
  )
}
