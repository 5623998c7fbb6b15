// The `copilot` transport: one step against Copilot's API on the OpenAI wire the profile
// names (`responses` → `{api}/responses`, `chat_completions` → `{api}/chat/completions`;
// Copilot's base carries no `/v1`). Bodies are the shared encodings with Copilot's rules on
// top; HTTP, retries, timeouts, abort and decoding are the openai-compatible layer's.
//
// Headers: the profile's (the editor or direct headers its sign-in's `runProfile` set), and
// per request `x-initiator` (`user` when the person's message is the last input, `agent`
// after a tool result or for a compaction) and `copilot-vision-request: true` when an image
// goes. A refused token ends the step with `upstream_unauthorized` and `run /login`; limits
// are read in limits.ts.

import { chatBody } from '../openai-chat/encode.ts'
import { openaiDecoder, streamStep } from '../openai-compatible/transport.ts'
import { responsesBody } from '../openai-responses/encode.ts'
import { type ErrorEvent, errorEvent, redact } from '../shared/errors.ts'
import type {
  EncodedRequest,
  NeutralEvent,
  NeutralRequest,
  StreamOptions,
  Transport,
  TransportProfile,
} from '../types.ts'
import { defaultApi } from './constants.ts'
import { copilotPolicy } from './limits.ts'

const LOGIN_ADVICE = 'run /login'
/** Headers the transport owns; a profile's headers cannot replace them. */
const OWNED = new Set(['authorization', 'accept', 'content-type', 'x-initiator', 'copilot-vision-request'])

/** `{api}/responses` or `{api}/chat/completions`, no `/v1`; an empty endpoint is Copilot's API. Throws on a non-URL. */
export function copilotUrl(endpoint: string, protocol: TransportProfile['protocol']): string {
  const path = protocol === 'responses' ? '/responses' : '/chat/completions'
  const url = new URL(endpoint.trim() || defaultApi())
  const base = url.pathname.replace(/\/+$/, '')
  url.pathname = base.endsWith(path) ? base : `${base}${path}`
  return url.toString()
}

/** `user` when the last input is the person's message; `agent` after a tool result or for a compaction. */
export function initiatorOf(req: NeutralRequest): 'user' | 'agent' {
  if (req.whole) return 'agent'
  return req.messages.at(-1)?.role === 'user' ? 'user' : 'agent'
}

/** Whether any input carries an image (the person's, or a tool's). */
export function hasImages(req: NeutralRequest): boolean {
  return req.messages.some((m) =>
    m.role === 'user'
      ? m.content.some((p) => p.type === 'image')
      : m.role === 'tool' && (m.images?.length ?? 0) > 0,
  )
}

/**
 * The body: the shared encoding of the profile's wire, without what Copilot refuses or
 * ignores. Chat Completions: no `store`, the system text as a `system` message (never
 * `developer`), no `reasoning_effort` (pi's compat for Copilot), no `reasoning_content`. Responses: no
 * `max_output_tokens` (Copilot's own clients leave it out for GPT models), the effort as
 * `reasoning: {effort}`. Neither carries a `prompt_cache_key`: Copilot takes no cache hints.
 */
export function copilotBody(profile: TransportProfile, req: NeutralRequest): Record<string, unknown> {
  if (profile.protocol === 'responses') {
    const body = responsesBody(profile, req)
    delete body.prompt_cache_key
    delete body.max_output_tokens
    return body
  }
  const body = chatBody(profile, req)
  delete body.store
  delete body.reasoning_effort
  delete body.prompt_cache_key
  // `reasoning_content` is DeepSeek's replay field, outside OpenAI's message params.
  for (const message of body.messages as Record<string, unknown>[]) delete message.reasoning_content
  return body
}

/** The HTTP request for one step. Throws only on an endpoint that is not a URL. */
export function encode(profile: TransportProfile, req: NeutralRequest): EncodedRequest {
  const url = copilotUrl(profile.endpoint, profile.protocol)
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(profile.headers ?? {})) {
    const key = name.toLowerCase()
    if (!OWNED.has(key)) headers[key] = value
  }
  if (profile.api_key) headers.authorization = `Bearer ${profile.api_key}`
  headers['x-initiator'] = initiatorOf(req)
  if (hasImages(req)) headers['copilot-vision-request'] = 'true'
  headers.accept = 'text/event-stream'
  headers['content-type'] = 'application/json'
  return { url, headers, body: JSON.stringify(copilotBody(profile, req)) }
}

/**
 * Whether the step sends a GitHub token as it is (a direct account, or the GitHub CLI's
 * token borrowed for the run): runProfile gives only exchanged tokens the editor headers.
 */
const sendsGitHubToken = (profile: TransportProfile): boolean =>
  !Object.keys(profile.headers ?? {}).some((name) => name.toLowerCase() === 'copilot-integration-id')

/** What a 401 means, said plainly. */
const REFUSED = {
  exchanged: 'GitHub Copilot refused the sign-in',
  direct:
    'GitHub Copilot refused the GitHub token (a GitHub CLI token is refused when its account has no Copilot or GitHub does not let the CLI use Copilot); sign in with a code:',
}

/** A refused token says what to do; every message is scrubbed of the token. */
function finish(event: ErrorEvent, token: string, direct: boolean): ErrorEvent {
  let message = redact(event.message, token)
  if (event.code === 'upstream_unauthorized' && !message.endsWith(LOGIN_ADVICE)) {
    const why = direct ? REFUSED.direct : `${REFUSED.exchanged},`
    message = `${message.replace(/[\s.;:]+$/, '')}; ${why} ${LOGIN_ADVICE}`
  }
  return { ...event, message }
}

async function* notSignedIn(): AsyncGenerator<NeutralEvent> {
  yield errorEvent('upstream_unauthorized', `not signed in to GitHub Copilot; ${LOGIN_ADVICE}`)
}

function stream(
  profile: TransportProfile,
  req: NeutralRequest,
  opts: StreamOptions,
): AsyncGenerator<NeutralEvent> {
  const token = profile.api_key
  if (!token) return notSignedIn()
  const decoder = openaiDecoder(
    profile.protocol,
    req.tools.map((t) => t.name),
  )
  const direct = sendsGitHubToken(profile)
  // The generator is returned as it is: each delta crosses no async step of this file.
  return streamStep(() => encode(profile, req), decoder, opts, token, {
    policy: copilotPolicy(req.model || profile.model),
    adjust: (event) => finish(event, token, direct),
  })
}

export const copilot: Transport = { stream }

/** The transport the kernel finds by this folder's name (../transports.ts). */
export { copilot as transport }
