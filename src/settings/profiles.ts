// Provider profiles as the run engine needs them: the public part from config.json
// (`providers.profiles`, hand-editable), the key from creds.json (`providers.<name>.apiKey`)
// or, until the next start moves it there, an `apiKey` written by hand into config.json.
// Read fresh for every run, so an edit applies to the next run without a restart.

import type { StepLimits } from '../kernel/protocol.ts'
import type { TransportProfile } from '../providers/types.ts'
import { DEFAULT_EXTENSION } from '../schemas/extensions.ts'
import { type FileContents, type JsonObject, readAllSettings } from './files.ts'
import { enabledExtensions } from './groups/extensions.ts'
import { keyOf, profilesOf } from './groups/providers.ts'
import { objectAt } from './merge.ts'

export interface ResolvedProfile {
  name: string
  extension: string
  effort: string | null
  /** The signed-in account the profile is bound to; null rotates through the pool. */
  account_id: string | null
  transport: TransportProfile
  limits: StepLimits
}

interface ProfileFile {
  extension?: string
  endpoint?: string
  protocol?: string
  model?: string
  effort?: string | null
  account_id?: string | null
  apiKey?: string
  project?: string | null
  location?: string | null
  image_edge?: number | null
  stream_idle_timeout_ms?: number
  request_max_retries?: number
}

/** A whole number within [min, max], else undefined (the transport's default applies). */
function wholeIn(value: unknown, min: number, max: number): number | undefined {
  return Number.isInteger(value) && (value as number) >= min && (value as number) <= max
    ? (value as number)
    : undefined
}

export class Profiles {
  readonly #home: string
  /** Profiles the daemon adds itself (the demo profile); config.json wins on a name clash. */
  readonly #builtIn = new Map<string, ResolvedProfile>()

  constructor(home: string) {
    this.#home = home
  }

  /** The files now; an unreadable config.json reads as no profiles (GET /settings says why). */
  #files(): FileContents | undefined {
    try {
      return readAllSettings(this.#home)
    } catch {
      return undefined
    }
  }

  addBuiltIn(p: ResolvedProfile): void {
    this.#builtIn.set(p.name, p)
  }

  /** The built-in profiles as settings reads show them (read-only, no key). */
  builtInReads(): Record<string, JsonObject> {
    return Object.fromEntries(
      [...this.#builtIn.values()].map((p) => [
        p.name,
        {
          extension: p.extension,
          endpoint: p.transport.endpoint,
          protocol: p.transport.protocol,
          model: p.transport.model,
          api_key: null,
          read_only: true,
        },
      ]),
    )
  }

  resolve(name: string): ResolvedProfile | undefined {
    return this.#resolveIn(this.#files(), name)
  }

  /** The extension a profile names, also when settings turn that extension off (null: no such profile). */
  extensionOf(name: string): string | null {
    const files = this.#files()
    const file = files ? (profilesOf(files['config.json'])[name] as ProfileFile | undefined) : undefined
    if (file && typeof file === 'object') return file.extension ?? DEFAULT_EXTENSION
    return this.#builtIn.get(name)?.extension ?? null
  }

  /**
   * What a new session starts with: the named profile (else the default one) and the named
   * model (else the profile's). One read of the files for both.
   */
  sessionDefaults(
    profile: string | undefined,
    model: string | undefined,
  ): { provider_profile: string; model: string } {
    const files = this.#files()
    const name = profile ?? this.#defaultIn(files) ?? ''
    const p = name === '' ? undefined : this.#resolveIn(files, name)
    return { provider_profile: name, model: model ?? p?.transport.model ?? '' }
  }

  /** The profile a new session uses when it names none. */
  #defaultIn(files: FileContents | undefined): string | null {
    const p = files ? objectAt(files['config.json'], 'providers') : {}
    if (typeof p.default_profile === 'string') return p.default_profile
    const names = files ? Object.keys(profilesOf(files['config.json'])) : []
    return names[0] ?? this.#builtIn.keys().next().value ?? null
  }

  #resolveIn(files: FileContents | undefined, name: string): ResolvedProfile | undefined {
    const file = files ? (profilesOf(files['config.json'])[name] as ProfileFile | undefined) : undefined
    if (!files || !file || typeof file !== 'object') return this.#builtIn.get(name)
    const extension = file.extension ?? DEFAULT_EXTENSION
    if (!enabledExtensions(files).has(extension)) return undefined // turned off in settings
    return {
      name,
      extension,
      effort: file.effort ?? null,
      account_id: typeof file.account_id === 'string' ? file.account_id : null,
      transport: {
        endpoint: String(file.endpoint ?? ''),
        protocol: file.protocol === 'chat_completions' ? 'chat_completions' : 'responses',
        model: String(file.model ?? ''),
        api_key: keyOf(files, name),
        ...(typeof file.project === 'string' && file.project !== '' ? { project: file.project } : {}),
        ...(typeof file.location === 'string' && file.location !== '' ? { location: file.location } : {}),
        ...(typeof file.image_edge === 'number' ? { image_edge: file.image_edge } : {}),
      },
      limits: {
        idle_timeout_ms: wholeIn(file.stream_idle_timeout_ms, 100, 3_600_000),
        max_retries: wholeIn(file.request_max_retries, 0, 10),
      },
    }
  }
}
