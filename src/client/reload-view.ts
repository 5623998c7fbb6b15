// `/reload` of the chat clients (line mode and the terminal client): POST
// /sessions/{id}/reload of `composition` (no argument: reading the session's MCP servers
// and instructions again is local), `models` (the catalogue, which may download) or both,
// and each target's outcome in a line.
import type { ReloadRequest, ReloadResult } from '../schemas/reload.ts'
import type { HearthClient } from './client.ts'

export const RELOAD_TARGETS = ['composition', 'models'] as const

/** Parses `/reload` arguments: none (the composition only), or `composition` and/or `models`. */
export function reloadArgs(args: string): ReloadRequest {
  const words = args.trim().split(/\s+/).filter(Boolean)
  for (const w of words)
    if (!(RELOAD_TARGETS as readonly string[]).includes(w))
      throw new Error(`/reload takes composition, models or nothing (the composition), not ${w}`)
  const targets = words.length === 0 ? ['composition'] : [...new Set(words)]
  return { targets: targets as ReloadRequest['targets'] }
}

/** What a reload did, a line per target asked for. */
export function reloadText(r: ReloadResult): string {
  const lines: string[] = []
  const c = r.composition
  if (c.outcome === 'reloaded') {
    const loaded = c.instructions.filter((i) => i.state === 'loaded').length
    const left = c.quarantine.map((q) => `${q.name} (${q.reason})`)
    lines.push(
      `composition reloaded: ${loaded} instruction file${loaded === 1 ? '' : 's'}${left.length > 0 ? `; left out: ${left.join(', ')}` : ''}`,
    )
  } else if (c.outcome === 'failed')
    lines.push(`composition not reloaded: ${c.problem?.detail ?? c.problem?.title}`)
  const m = r.models
  if (m.outcome === 'refreshed')
    lines.push(`model catalogue refreshed: ${m.providers} providers, ${m.models} models from ${m.source}`)
  else if (m.outcome === 'failed')
    lines.push(`model catalogue not refreshed: ${m.problem?.detail ?? m.problem?.title}`)
  return lines.join('\n')
}

export async function reload(client: HearthClient, sessionId: string, args: string): Promise<string> {
  const { body } = await client.call('sessions.reload', {
    params: { session_id: sessionId },
    body: reloadArgs(args),
  })
  return reloadText(body as ReloadResult)
}
