// Session config options: the model picker is hearth's profiles and their models (one select
// grouped by profile, a value `PROFILE/MODEL`: a profile name never holds `/`), the reasoning
// effort, and the mode (the approval policy, also offered as ACP modes for older editors).
// session/set_config_option changes the session's configuration; the reply carries every
// option as it is then.
import {
  RequestError,
  type SessionConfigOption,
  type SessionConfigSelectGroup,
  type SessionUpdate,
  type SetSessionConfigOptionRequest,
  type SetSessionConfigOptionResponse,
} from '@agentclientprotocol/sdk'
import type { HearthClient } from '../client/client.ts'
import { profilesOf } from '../client/profiles.ts'
import { EFFORTS } from '../schemas/common.ts'
import { commandsUpdate } from './commands.ts'
import { type Configuration, patchConfiguration, readConfiguration } from './configuration.ts'
import type { AcpContext } from './context.ts'
import { MODES, modeOf, setPolicy } from './modes.ts'

/** Models listed per profile at most (one page of the catalogue). */
const MODELS_PER_PROFILE = 200
const DEFAULT_EFFORT = 'default'

export const modelValue = (profile: string, model: string) => `${profile}/${model}`

/** `PROFILE/MODEL` split at the first `/` (model ids may hold more). */
export function parseModelValue(value: string): { profile: string; model: string } | undefined {
  const cut = value.indexOf('/')
  if (cut <= 0 || cut === value.length - 1) return undefined
  return { profile: value.slice(0, cut), model: value.slice(cut + 1) }
}

/** The models the catalogue lists for a profile (none when it knows none). */
async function modelsOfProfile(
  client: HearthClient,
  profile: string,
): Promise<{ id: string; name: string }[]> {
  try {
    const { body } = await client.call('models.get', {
      query: { provider_profile: profile, limit: MODELS_PER_PROFILE },
    })
    const items = (body as { items?: { id: string; name: string | null }[] }).items ?? []
    return items.map((m) => ({ id: m.id, name: m.name ?? m.id }))
  } catch {
    return []
  }
}

/** One group per profile: its models, with the profile's own model and the session's first. */
async function modelGroups(client: HearthClient, c: Configuration): Promise<SessionConfigSelectGroup[]> {
  const profiles = await profilesOf(client).catch(() => ({}) as Awaited<ReturnType<typeof profilesOf>>)
  const names = Object.keys(profiles)
  if (c.provider_profile && !names.includes(c.provider_profile)) names.unshift(c.provider_profile)
  return Promise.all(
    names.map(async (profile) => {
      const listed = await modelsOfProfile(client, profile)
      const own = [profiles[profile]?.model, profile === c.provider_profile ? c.model : undefined]
      const extra = own
        .filter((m): m is string => typeof m === 'string' && m !== '' && !listed.some((l) => l.id === m))
        .filter((m, i, all) => all.indexOf(m) === i)
        .map((id) => ({ id, name: id }))
      return {
        group: profile,
        name: profile,
        options: [...extra, ...listed].map((m) => ({
          value: modelValue(profile, m.id),
          name: m.name,
          description: `${m.id} on profile ${profile}`,
        })),
      }
    }),
  )
}

/** Every option of the session, as its configuration is now. */
export async function configOptions(client: HearthClient, c: Configuration): Promise<SessionConfigOption[]> {
  const [groups, mode] = await Promise.all([modelGroups(client, c), modeOf(client, c)])
  return [
    {
      id: 'model',
      name: 'Model',
      description: 'The provider profile and model the next turn uses',
      category: 'model',
      type: 'select',
      currentValue: modelValue(c.provider_profile, c.model),
      options: groups,
    },
    {
      id: 'effort',
      name: 'Reasoning effort',
      description: 'How hard a reasoning model thinks (default: the profile’s)',
      category: 'thought_level',
      type: 'select',
      currentValue: c.effort ?? DEFAULT_EFFORT,
      options: [DEFAULT_EFFORT, ...EFFORTS].map((e) => ({ value: e, name: e })),
    },
    {
      id: 'mode',
      name: 'Approvals',
      description: 'Which tool calls run without asking',
      category: 'mode',
      type: 'select',
      currentValue: mode,
      options: MODES.map((m) => ({ value: m.id, name: m.name, description: m.description ?? null })),
    },
  ]
}

/** The configuration change an option's new value asks for; invalid params when it is none. */
function changeOf(configId: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'string')
    throw RequestError.invalidParams({ configId }, 'the value must be one of the options')
  if (configId === 'model') {
    const m = parseModelValue(value)
    if (!m) throw RequestError.invalidParams({ configId, value }, 'a model value is PROFILE/MODEL')
    return { provider_profile: m.profile, model: m.model }
  }
  if (configId === 'effort') {
    if (value !== DEFAULT_EFFORT && !(EFFORTS as readonly string[]).includes(value))
      throw RequestError.invalidParams({ configId, value }, `unknown effort ${value}`)
    return { effort: value === DEFAULT_EFFORT ? null : value }
  }
  throw RequestError.invalidParams({ configId }, `unknown option ${configId} (model, effort or mode)`)
}

/** A profile the settings name (a session on an unknown one would fail at its next turn). */
async function requireProfile(client: HearthClient, profile: string): Promise<void> {
  const profiles = await profilesOf(client)
  if (!(profile in profiles))
    throw RequestError.invalidParams(
      { profile },
      `no profile named ${profile} (${Object.keys(profiles).join(', ')})`,
    )
}

export async function setConfigOption(
  ctx: AcpContext,
  params: SetSessionConfigOptionRequest,
): Promise<SetSessionConfigOptionResponse> {
  const value = params.value
  const change = params.configId === 'mode' ? {} : changeOf(params.configId, value)
  if (typeof change.provider_profile === 'string') await requireProfile(ctx.client, change.provider_profile)
  const c =
    params.configId === 'mode'
      ? await setPolicy(ctx, params.sessionId, String(value))
      : await patchConfiguration(ctx.client, params.sessionId, change)
  return { configOptions: await configOptions(ctx.client, c) }
}

/** The options of a session as it is now (for session/new, load and resume replies). */
export async function configOptionsOfSession(client: HearthClient, sessionId: string) {
  const { value } = await readConfiguration(client, sessionId)
  return { configuration: value, configOptions: await configOptions(client, value) }
}

/** Fields of `session.configured` changes the editor shows: the mode and the options. */
const SHOWN = ['approval_policy', 'provider_profile', 'model', 'effort']

/** The mode and every option as they are now. */
async function optionUpdates(
  client: HearthClient,
  sessionId: string,
  modeChanged: boolean,
): Promise<SessionUpdate[]> {
  const { value } = await readConfiguration(client, sessionId)
  const options = await configOptions(client, value)
  const mode = options.find((o) => o.id === 'mode')
  return [
    ...(mode && modeChanged && mode.type === 'select'
      ? [{ sessionUpdate: 'current_mode_update' as const, currentModeId: mode.currentValue }]
      : []),
    { sessionUpdate: 'config_option_update', configOptions: options },
  ]
}

/**
 * What the editor is told when the session's configuration changed (here or in any other
 * client): the mode and every option when a field they show changed, the commands and
 * skills when the selection did (a skill turned off is no longer offered).
 */
export async function configurationUpdates(
  client: HearthClient,
  sessionId: string,
  changes: Record<string, unknown> | undefined,
): Promise<SessionUpdate[]> {
  if (!changes) return []
  const [options, commands] = await Promise.all([
    SHOWN.some((k) => k in changes) ? optionUpdates(client, sessionId, 'approval_policy' in changes) : [],
    'selection' in changes ? commandsUpdate(client, sessionId) : null,
  ])
  return [...options, ...(commands ? [commands] : [])]
}
