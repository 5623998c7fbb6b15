// The status line under the transcript: workspace, profile, model, effort, phase, tokens
// and context use of the open session (from the session read's usage fields), and the quota
// of the account in use when there is a reading.

import type { SessionRead } from '../schemas/session-read.ts'
import { truncateToWidth } from './pi.ts'
import type { Theme } from './theme.ts'

const compact = (n: number) => (n >= 10_000 ? `${Math.round(n / 1000)}k` : String(n))

/** The home directory shown as ~. */
function shortPath(path: string): string {
  const home = process.env.HOME
  return home && (path === home || path.startsWith(`${home}/`)) ? `~${path.slice(home.length)}` : path
}

export function statusLine(
  s: SessionRead | undefined,
  width: number,
  theme: Theme,
  note?: string,
  quota?: string,
): string {
  if (!s) return truncateToWidth(theme.dim(note ?? 'opening…'), width, '…')
  const parts = [shortPath(s.workspace), s.provider_profile || 'no profile', s.model]
  if (s.effort) parts.push(s.effort)
  // The session's own policy (null follows the settings), where the daemon has one.
  const policy = (s.configuration_resource?.value as { approval_policy?: string | null } | undefined)
    ?.approval_policy
  if (policy) parts.push(`approve: ${policy}`)
  const u = s.usage
  if (u.total_tokens !== null) parts.push(`${compact(u.total_tokens)} tokens`)
  if (u.prompt_tokens !== null && u.context_window_tokens) {
    parts.push(`context ${Math.round((100 * u.prompt_tokens) / u.context_window_tokens)}%`)
  }
  if (quota) parts.push(quota)
  // An update landed since the session's kernel started: /upgrade would help.
  if (s.kernel?.stale) parts.push('kernel stale')
  const phase = s.status.phase === 'idle' ? theme.dim('idle') : theme.warn(s.status.phase)
  const left = `${phase} · ${theme.dim(parts.join(' · '))}`
  return truncateToWidth(note ? `${left} · ${theme.warn(note)}` : left, width, '…')
}
