// The model and profile picker (/model), in three steps: the provider profile (from GET
// /settings?group=providers: name, extension, read-only; the account state from GET /auth
// where the extension signs in), the model (GET /models for that profile, with context
// window and price where the catalogue knows them; typing filters, and a typed id the list
// lacks can be used as it is), then the effort. The choice is one configuration merge patch
// with the configuration's ETag; the status line follows from `session.configured`. A
// signed-out profile opens the login screen first.

import type { HearthClient } from '../client/client.ts'
import type { ModelInfo } from '../schemas/models.ts'
import type { SessionChangeRequest } from '../schemas/session-configuration.ts'
import type { SessionRead } from '../schemas/session-read.ts'
import { ListPicker, type ListPickerOptions, type PickerRow } from './list-picker.ts'

/** The efforts a profile takes (settings' `effort`); "default" sends null. */
const EFFORTS = ['default', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const

export interface ModelPickerOptions extends ListPickerOptions {
  client: () => HearthClient
  session: () => SessionRead | undefined
  configure: (patch: SessionChangeRequest) => Promise<void>
  /** Signs in to a provider (the login screen); true when a sign-in completed. */
  signIn?: (extension: string) => Promise<boolean>
}

interface Profile {
  name: string
  extension: string
  readOnly: boolean
  /** 'signed in' / 'signed out' where the extension signs in; else undefined. */
  account: string | undefined
}

type Step = 'profile' | 'model' | 'effort'

const compact = (n: number) => (n >= 1000 ? `${Math.round(n / 1000)}k` : String(n))

export function modelLine(m: Pick<ModelInfo, 'id' | 'context_window' | 'cost'>): string {
  const facts: string[] = []
  if (m.context_window) facts.push(`${compact(m.context_window)} context`)
  if (m.cost && m.cost.input !== null && m.cost.output !== null)
    facts.push(`$${m.cost.input}/$${m.cost.output} per M`)
  return facts.length ? `${m.id}  ${facts.join(' · ')}` : m.id
}

export class ModelPicker extends ListPicker {
  readonly #m: ModelPickerOptions
  #step: Step = 'profile'
  #profiles: Profile[] = []
  #models: ModelInfo[] = []
  #profile: Profile | undefined
  #model: string | undefined
  #loading = true

  constructor(o: ModelPickerOptions) {
    super(o)
    this.#m = o
    this.textLabel = 'filter'
    void this.#loadProfiles()
  }

  protected title(): string {
    const s = this.#m.session()
    const now = s ? `now: ${s.provider_profile} · ${s.model}${s.effort ? ` · ${s.effort}` : ''}` : ''
    const step =
      this.#step === 'profile'
        ? 'Profile'
        : this.#step === 'model'
          ? `Model for ${this.#profile?.name}`
          : `Effort for ${this.#model}`
    return `${step}${this.#loading ? ' · loading…' : ''}   ${now}`
  }

  protected hint(): string {
    return this.#step === 'model'
      ? 'type to filter or enter a model id · Enter choose · Esc back'
      : 'Enter choose · Esc back'
  }

  #filtered<T>(list: T[], key: (t: T) => string): T[] {
    const f = this.text.toLowerCase()
    return f ? list.filter((x) => key(x).toLowerCase().includes(f)) : list
  }

  protected items(): PickerRow[] {
    switch (this.#step) {
      case 'profile':
        return this.#filtered(this.#profiles, (p) => p.name).map((p) => ({
          text: [p.name, p.extension, p.readOnly ? 'read-only' : '', p.account ?? '']
            .filter(Boolean)
            .join('  '),
        }))
      case 'model': {
        const rows = this.#filtered(this.#models, (m) => m.id).map((m) => ({ text: modelLine(m) }))
        const typed = this.text.trim()
        if (typed && !this.#models.some((m) => m.id === typed))
          rows.push({ text: `use "${typed}" (a model id)` })
        return rows
      }
      case 'effort':
        return this.#filtered([...EFFORTS], (e) => e).map((e) => ({ text: e }))
    }
  }

  protected textChanged(): void {}

  protected back(): boolean {
    if (this.#step === 'profile') return false
    this.#step = this.#step === 'effort' ? 'model' : 'profile'
    this.text = ''
    this.selected = 0
    this.render_()
    return true
  }

  protected choose(index: number): void {
    switch (this.#step) {
      case 'profile': {
        const p = this.#filtered(this.#profiles, (x) => x.name)[index]
        if (!p) return
        // A signed-out profile starts a sign-in first; the models follow once it completed.
        if (p.account === 'signed out' && this.#m.signIn) {
          void this.#m.signIn(p.extension).then((signedIn) => {
            if (!signedIn) return this.say(`${p.name} is still signed out`, 'warn')
            p.account = 'signed in'
            this.choose(index)
          })
          return
        }
        this.#profile = p
        this.#step = 'model'
        this.text = ''
        this.selected = 0
        void this.#loadModels(p.name)
        return
      }
      case 'model': {
        const models = this.#filtered(this.#models, (m) => m.id)
        this.#model = models[index]?.id ?? this.text.trim()
        if (!this.#model) return
        this.#step = 'effort'
        this.text = ''
        this.selected = Math.max(
          0,
          EFFORTS.indexOf((this.#m.session()?.effort ?? 'default') as (typeof EFFORTS)[number]),
        )
        this.render_()
        return
      }
      case 'effort': {
        const effort = this.#filtered([...EFFORTS], (e) => e)[index]
        if (!effort || !this.#profile || !this.#model) return
        const patch: SessionChangeRequest = {
          provider_profile: this.#profile.name,
          model: this.#model,
          effort: effort === 'default' ? null : effort,
        }
        this.say('changing…')
        this.#m.configure(patch).then(
          () => this.o.close(),
          (err) => this.say((err as Error).message, 'error'),
        )
      }
    }
  }

  async #loadProfiles(): Promise<void> {
    try {
      const client = this.#m.client()
      const [{ body: settings }, { body: auth }] = await Promise.all([
        client.call('settings.get', { query: { group: 'providers' } }),
        client.call('auth.get'),
      ])
      const group = (
        settings as { settings: { profiles: Record<string, { extension: string; read_only?: boolean }> } }
      ).settings
      const state = new Map(auth.providers.map((p) => [p.extension, p.status]))
      this.#profiles = Object.entries(group.profiles).map(([name, p]) => ({
        name,
        extension: p.extension,
        readOnly: p.read_only === true,
        account: state.get(p.extension),
      }))
      const current = this.#m.session()?.provider_profile
      this.selected = Math.max(
        0,
        this.#profiles.findIndex((p) => p.name === current),
      )
    } catch (err) {
      this.say(`could not read the profiles: ${(err as Error).message}`, 'error')
    } finally {
      this.#loading = false
      this.render_()
    }
  }

  async #loadModels(profile: string): Promise<void> {
    this.#models = []
    this.#loading = true
    this.render_()
    try {
      const { body } = await this.#m.client().call('models.get', {
        query: { provider_profile: profile, limit: 200 },
      })
      this.#models = 'items' in body ? body.items : []
      const current = this.#m.session()
      if (current?.provider_profile === profile)
        this.selected = Math.max(
          0,
          this.#models.findIndex((m) => m.id === current.model),
        )
      if (this.#models.length === 0) this.say('the catalogue lists no models here: type a model id', 'warn')
    } catch (err) {
      this.say(`could not read the models: ${(err as Error).message}; type a model id`, 'error')
    } finally {
      this.#loading = false
      this.render_()
    }
  }
}
