// ACP session modes are hearth's approval policies: `read-only`, `ask` and `auto`, the
// session configuration's `approval_policy` (null follows settings `tools.approval_policy`,
// so the mode shown is the one that holds). session/set_mode changes the session's policy;
// the change applies from the next tool call, as any configuration change does.
import {
  RequestError,
  type SessionMode,
  type SessionModeState,
  type SetSessionModeRequest,
  type SetSessionModeResponse,
} from '@agentclientprotocol/sdk'
import type { HearthClient } from '../client/client.ts'
import type { Configuration } from './configuration.ts'
import { patchConfiguration } from './configuration.ts'
import type { AcpContext } from './context.ts'

export const MODES: readonly SessionMode[] = [
  {
    id: 'read-only',
    name: 'Read-only',
    description: 'Reads and searches run; writes, edits and commands are not offered',
  },
  { id: 'ask', name: 'Ask', description: 'Reads run; every write, edit and command waits for your approval' },
  {
    id: 'auto',
    name: 'Auto',
    description: 'Everything runs without asking (commands in the sandbox where there is one)',
  },
]

export type ModeId = 'read-only' | 'ask' | 'auto'
const isMode = (id: unknown): id is ModeId => MODES.some((m) => m.id === id)

/** The settings' default policy (`tools.approval_policy`), `ask` when unreadable. */
export async function defaultPolicy(client: HearthClient): Promise<ModeId> {
  try {
    const { body } = await client.call('settings.get', { query: { group: 'tools' } })
    const policy = (body as { settings: { approval_policy?: unknown } }).settings.approval_policy
    return isMode(policy) ? policy : 'ask'
  } catch {
    return 'ask'
  }
}

/** The mode that holds for a configuration: its own policy, else the settings'. */
export async function modeOf(
  client: HearthClient,
  c: Pick<Configuration, 'approval_policy'>,
): Promise<ModeId> {
  return isMode(c.approval_policy) ? c.approval_policy : defaultPolicy(client)
}

export async function modeState(client: HearthClient, c: Configuration): Promise<SessionModeState> {
  return { currentModeId: await modeOf(client, c), availableModes: [...MODES] }
}

/** Sets the session's approval policy; an unknown mode is invalid params, nothing changes. */
export async function setPolicy(ctx: AcpContext, sessionId: string, modeId: string): Promise<Configuration> {
  if (!isMode(modeId))
    throw RequestError.invalidParams({ modeId }, `unknown mode ${modeId} (read-only, ask or auto)`)
  return patchConfiguration(ctx.client, sessionId, { approval_policy: modeId })
}

export async function setMode(
  ctx: AcpContext,
  params: SetSessionModeRequest,
): Promise<SetSessionModeResponse> {
  await setPolicy(ctx, params.sessionId, params.modeId)
  return {}
}
