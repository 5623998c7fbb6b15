// Provider profiles as the run engine needs them: the public part from config.json
// (`providers.profiles`, hand-editable), the key from creds.json (`providers.<name>.api_key`)
// or, until the next start moves it there, an `apiKey` written by hand into config.json.
// Read fresh for every run, so an edit applies to the next turn without a restart.
import { readFileSync } from 'node:fs'
import type { TurnLimits } from '../kernel/protocol.ts'
import type { TransportProfile } from '../providers/types.ts'

export interface ResolvedProfile {
  name: string
  extension: string
  effort: string | null
  transport: TransportProfile
  limits: TurnLimits
}

interface ProfileFile {
  extension?: string
  endpoint?: string
  protocol?: string
  model?: string
  effort?: string | null
  apiKey?: string
  stream_idle_timeout_ms?: number
  request_max_retries?: number
}

/** A whole number within [min, max], else undefined (the transport's default applies). */
function wholeIn(value: unknown, min: number, max: number): number | undefined {
  return Number.isInteger(value) && (value as number) >= min && (value as number) <= max
    ? (value as number)
    : undefined
}

function readJson(path: string): Record<string, unknown> {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as unknown
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

export class Profiles {
  readonly #configPath: string
  readonly #credsPath: string
  /** Profiles the daemon adds itself (the demo profile); config.json wins on a name clash. */
  readonly #builtIn = new Map<string, ResolvedProfile>()

  constructor(configPath: string, credsPath: string) {
    this.#configPath = configPath
    this.#credsPath = credsPath
  }

  addBuiltIn(p: ResolvedProfile): void {
    this.#builtIn.set(p.name, p)
  }

  #providers(): { default_profile?: string; profiles?: Record<string, ProfileFile> } {
    const providers = readJson(this.#configPath).providers
    return providers !== null && typeof providers === 'object' ? (providers as never) : {}
  }

  /** The profile a new session uses when it names none. */
  defaultProfile(): string | null {
    const p = this.#providers()
    if (typeof p.default_profile === 'string') return p.default_profile
    const names = Object.keys(p.profiles ?? {})
    return names[0] ?? this.#builtIn.keys().next().value ?? null
  }

  resolve(name: string): ResolvedProfile | undefined {
    const file = this.#providers().profiles?.[name]
    if (!file || typeof file !== 'object') return this.#builtIn.get(name)
    const creds = readJson(this.#credsPath).providers as Record<string, { api_key?: string }> | undefined
    const key = typeof file.apiKey === 'string' ? file.apiKey : creds?.[name]?.api_key
    return {
      name,
      extension: file.extension ?? 'openai-compatible',
      effort: file.effort ?? null,
      transport: {
        endpoint: String(file.endpoint ?? ''),
        protocol: file.protocol === 'chat_completions' ? 'chat_completions' : 'responses',
        model: String(file.model ?? ''),
        api_key: typeof key === 'string' && key !== '' ? key : null,
      },
      limits: {
        idle_timeout_ms: wholeIn(file.stream_idle_timeout_ms, 100, 3_600_000),
        max_retries: wholeIn(file.request_max_retries, 0, 10),
      },
    }
  }
}
