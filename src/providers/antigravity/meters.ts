// The backend meters its quota per model family: a 429 for one family leaves the account
// usable for the others. The meter keys are those of creds.json `limitedMeters`.

export type Meter = 'gemini' | 'claude' | 'gpt-oss'

/** The meter a model draws on (`gemini-*`, `claude-*`, `gpt-oss-*`), or null for another model. */
export function meterOf(model: string): Meter | null {
  const id = model.toLowerCase().replace(/^models\//, '')
  if (id.startsWith('gemini-')) return 'gemini'
  if (id.startsWith('claude-')) return 'claude'
  if (id.startsWith('gpt-oss-')) return 'gpt-oss'
  return null
}
