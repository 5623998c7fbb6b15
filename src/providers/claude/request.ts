// The Messages request of a Claude subscription step: the URL (with the test hook), the
// client headers of a subscription token, and the body — the shared Messages encoding with
// the attribution and identity system blocks first, Claude Code's tool names and flattened
// tool schemas. Pure functions; transport.ts sends what they build.
import { messagesBody } from '../anthropic-messages/encode.ts'
import { modelFacts } from '../anthropic-messages/models.ts'
import { messagesHeaders } from '../anthropic-messages/transport.ts'
import type { EncodedRequest, NeutralRequest, TransportProfile } from '../types.ts'
import {
  BASE_URL_ENV,
  BETAS,
  BILLING_TEXT,
  CLAUDE_CODE_VERSION,
  CLAUDE_ENDPOINT,
  IDENTITY_TEXT,
  INTERLEAVED_THINKING_BETA,
} from './constants.ts'

const MESSAGES_PATH = '/v1/messages'

/**
 * `{base}/v1/messages`. The base is `HEARTH_CLAUDE_BASE_URL` when set (it wins over the
 * profile, and is the only way to a plain `http://` server), else the profile's endpoint,
 * which must be HTTPS, else api.anthropic.com. A base already ending in `/v1/messages` is
 * used as it is, one ending in `/v1` gets `/messages`. Throws on anything else.
 */
export function claudeUrl(endpoint: string, env: NodeJS.ProcessEnv = process.env): string {
  const hook = env[BASE_URL_ENV]?.trim()
  const given = endpoint.trim()
  if (!hook && given !== '' && !/^https:\/\//i.test(given))
    throw new Error(`a claude endpoint must be https:// (${BASE_URL_ENV} alone may name a plain http server)`)
  const base = (hook || given || CLAUDE_ENDPOINT).replace(/\/+$/, '')
  const url = base.endsWith(MESSAGES_PATH)
    ? base
    : base.endsWith('/v1')
      ? `${base}/messages`
      : `${base}${MESSAGES_PATH}`
  return new URL(url).toString()
}

/** Claude Code's own tool names: a hearth tool of the same name in another case is sent as this. */
export const CANONICAL_TOOLS = [
  'Read',
  'Write',
  'Edit',
  'Bash',
  'Grep',
  'Glob',
  'AskUserQuestion',
  'EnterPlanMode',
  'ExitPlanMode',
  'KillShell',
  'NotebookEdit',
  'Skill',
  'Task',
  'TaskOutput',
  'TodoWrite',
  'WebFetch',
  'WebSearch',
] as const
const BY_LOWER = new Map(CANONICAL_TOOLS.map((n) => [n.toLowerCase(), n]))

/** The name a tool goes by on the wire (`read` → `Read`; other names as they are). */
export function wireToolName(name: string): string {
  return BY_LOWER.get(name.toLowerCase()) ?? name
}

/** A called name back to the offered tool it stands for (case-insensitive); unknown names as they are. */
export function offeredToolName(wire: string, offered: readonly string[]): string {
  return (
    offered.find((n) => n === wire) ?? offered.find((n) => n.toLowerCase() === wire.toLowerCase()) ?? wire
  )
}

/** The client headers of a subscription token (no `x-api-key`: the token is a bearer). */
export function claudeHeaders(token: string, model: string): Record<string, string> {
  const betas: string[] = [...BETAS]
  if (modelFacts(model).thinking === 'budget') betas.push(INTERLEAVED_THINKING_BETA)
  return {
    ...messagesHeaders(),
    authorization: `Bearer ${token}`,
    'anthropic-beta': betas.join(','),
    'anthropic-dangerous-direct-browser-access': 'true',
    'user-agent': `claude-cli/${CLAUDE_CODE_VERSION} (external, cli)`,
    'x-app': 'cli',
  }
}

/**
 * The body: system[0] the billing attribution text, system[1] the identity, then the
 * request's system text; tools (and replayed calls) under their wire names with flattened
 * schemas; signed thinking replayed to the model that produced it.
 */
export function claudeBody(req: NeutralRequest): Record<string, unknown> {
  const wire: NeutralRequest = {
    ...req,
    tools: req.tools.map((t) => ({ ...t, name: wireToolName(t.name) })),
    messages: req.messages.map((m) =>
      m.role === 'assistant'
        ? {
            ...m,
            content: m.content.map((p) =>
              p.type === 'tool_call' ? { ...p, name: wireToolName(p.name) } : p,
            ),
          }
        : m,
    ),
  }
  return messagesBody(wire, {
    systemPrefix: [
      { type: 'text', text: BILLING_TEXT },
      { type: 'text', text: IDENTITY_TEXT },
    ],
    replayThinking: true,
  })
}

/** The HTTP request of one step. Throws only on an unusable endpoint. */
export function encode(profile: TransportProfile, req: NeutralRequest, env = process.env): EncodedRequest {
  return {
    url: claudeUrl(profile.endpoint, env),
    headers: claudeHeaders(profile.api_key ?? '', req.model),
    body: JSON.stringify(claudeBody(req)),
  }
}
