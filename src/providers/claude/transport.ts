// The `claude` transport: one step on a Claude Pro/Max subscription token
// (`POST {base}/v1/messages`, Messages SSE). The request is request.ts's; HTTP, Anthropic's
// error bodies and decoding are the shared Messages step's. A refused token ends the step
// `upstream_unauthorized` with a message ending in `run /login` (the daemon then marks the
// token expired); a called tool's wire name is mapped back to the tool that was offered.
import { messagesStep } from '../anthropic-messages/transport.ts'
import { type ErrorEvent, errorEvent, redact } from '../shared/errors.ts'
import type { NeutralEvent, NeutralRequest, StreamOptions, Transport, TransportProfile } from '../types.ts'
import { encode, offeredToolName } from './request.ts'

export const LOGIN_ADVICE = 'run /login'

/** How Anthropic has been reported to refuse a subscription token used outside its apps. */
const POLICY_REFUSAL = /only authori[sz]ed for use with Claude Code/i

/**
 * A refused sign-in says what to do; a refusal on policy grounds points to what fits the
 * terms; every message is scrubbed of the token.
 */
export function finish(event: ErrorEvent, token: string | null): ErrorEvent {
  let message = redact(event.message, token)
  if (POLICY_REFUSAL.test(message))
    message = `${message.replace(/[\s.;:]+$/, '')}; Anthropic allows this sign-in only in its own apps: use Amazon Bedrock (extension bedrock) or an Anthropic API key`
  if (event.code === 'upstream_unauthorized' && !message.endsWith(LOGIN_ADVICE))
    message = `${message.replace(/[\s.;:]+$/, '')}; the Claude sign-in was refused, ${LOGIN_ADVICE}`
  return { ...event, message }
}

async function* notSignedIn(): AsyncGenerator<NeutralEvent> {
  yield errorEvent('upstream_unauthorized', `not signed in to Claude; ${LOGIN_ADVICE}`)
}

/** The shared step itself, not wrapped: a generator around it costs a few µs per event. */
function stream(
  profile: TransportProfile,
  req: NeutralRequest,
  opts: StreamOptions,
): AsyncGenerator<NeutralEvent> {
  const token = profile.api_key
  if (!token) return notSignedIn()
  const offered = req.tools.map((t) => t.name)
  return messagesStep(() => encode(profile, req), opts, token, {
    adjust: (event) => finish(event, token),
    toolName: (wire) => offeredToolName(wire, offered),
  })
}

export const claude: Transport = { stream }

/** The transport the kernel finds by this folder's name (../transports.ts). */
export { claude as transport }
