// The provider profiles as clients read them (GET /settings?group=providers), and the
// extension a session's profile signs in with.
import { DEFAULT_EXTENSION } from '../schemas/extensions.ts'
import type { HearthClient } from './client.ts'

export interface ProfileFacts {
  extension?: string
  model?: string | null
  account_id?: string | null
  read_only?: boolean
}

export async function profilesOf(client: HearthClient): Promise<Record<string, ProfileFacts>> {
  const { body } = await client.call('settings.get', { query: { group: 'providers' } })
  return (body as { settings: { profiles: Record<string, ProfileFacts> } }).settings.profiles
}

/** The extension of profile `name` (a profile without one is `openai-compatible`). */
export async function extensionOfProfile(client: HearthClient, name: string): Promise<string | undefined> {
  const p = (await profilesOf(client))[name]
  return p ? (p.extension ?? DEFAULT_EXTENSION) : undefined
}
