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

const METERS: readonly Meter[] = ['gemini', 'claude', 'gpt-oss']

/**
 * The meters a reported limit counts for, by its id and title (a model or a family's pool):
 * `gemini…` the Gemini meter; `claude…` and `gpt…` the Claude and gpt-oss meters (the
 * backend pools Claude and GPT models in one quota group, so a pool naming both is both).
 */
export function metersOfLimit(name: string): Meter[] {
  const id = name.toLowerCase()
  return METERS.filter((m) => (m === 'gpt-oss' ? id.includes('gpt') : id.includes(m)))
}

/** Two epoch-ms times name the same reset when they fall in the same second. */
const sameSecond = (a: number, b: number) => Math.floor(a / 1000) === Math.floor(b / 1000)

/**
 * Heals an account's limit marks once poll readings arrive: a legacy account-wide
 * `limitedUntil` equal to some limit's reset time is re-keyed to that limit's meters in
 * `limitedMeters` (a later mark already there is kept) and the legacy field cleared; a
 * mark no reset matches is cleared too. Returns the credential to store, or null when it
 * has no legacy mark (nothing to heal).
 */
export function healMarks(
  credential: Readonly<Record<string, unknown>>,
  limits: readonly { limitId: string; label: string | null; resetAtMs: number | null }[],
): Record<string, unknown> | null {
  const until = credential.limitedUntil
  if (until === undefined) return null
  const out: Record<string, unknown> = { ...credential }
  delete out.limitedUntil
  if (typeof until !== 'number' || !Number.isFinite(until)) return out
  const meters = new Set(
    limits
      .filter((l) => l.resetAtMs !== null && sameSecond(l.resetAtMs, until))
      .flatMap((l) => metersOfLimit(`${l.limitId} ${l.label ?? ''}`)),
  )
  if (meters.size === 0) return out
  const prior = credential.limitedMeters
  const marks: Record<string, unknown> =
    prior !== null && typeof prior === 'object' && !Array.isArray(prior) ? { ...prior } : {}
  for (const m of meters) {
    const had = marks[m]
    marks[m] = typeof had === 'number' && had > until ? had : until
  }
  out.limitedMeters = marks
  return out
}
