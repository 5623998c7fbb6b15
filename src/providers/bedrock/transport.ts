// The `bedrock` transport: Claude models on Amazon Bedrock through its Anthropic Messages
// route, `POST {baseUrl}/anthropic/v1/messages`. Every model step works out afresh, in
// this order: the endpoint (the profile's, checked before anything else is read, else the
// runtime endpoint of the region in the environment or the AWS profile), the credential
// (credentials.ts), the body (the shared Messages codec; signed thinking is never
// replayed) and, for AWS keys, the SigV4 signature. The streamed step itself (HTTP,
// retries, Anthropic's errors, decoding) is the shared Messages step.
import { messagesBody } from '../anthropic-messages/encode.ts'
import { messagesHeaders, messagesStep } from '../anthropic-messages/transport.ts'
import type { PreparedRequest as StepRequest } from '../openai-compatible/transport.ts'
import { type ErrorEvent, errorEvent } from '../shared/errors.ts'
import type { EncodedRequest, NeutralEvent, NeutralRequest, Transport, TransportProfile } from '../types.ts'
import { type AwsProfile, type Env, readAwsProfile } from './aws-files.ts'
import { CredentialProcessError } from './credential-process.ts'
import { type BedrockAuth, CredentialError, resolveAuth } from './credentials.ts'
import {
  type BedrockEndpoint,
  checkEndpoint,
  EndpointError,
  type EndpointKind,
  hookBase,
  isRegion,
  MESSAGES_PATH,
  runtimeEndpoint,
  SIGNING_SERVICE,
} from './endpoint.ts'
import { signedHeaders } from './sign.ts'

/** The body field the runtime endpoint takes in place of the `anthropic-version` header. */
export const RUNTIME_ANTHROPIC_VERSION = 'bedrock-2023-05-31'
/** Replaces the base URL (tests, local proxies: the only way to reach plain http). */
export const BASE_URL_HOOK = 'HEARTH_BEDROCK_BASE_URL'

export interface BedrockOptions {
  /** The environment read on every step (default: this process's, the daemon's). */
  env?: () => Env
  /** The signing time (default now). */
  now?: () => Date
}

/** One step's request, signed or keyed, and what a failure message may say about it. */
export interface PreparedRequest {
  encoded: EncodedRequest
  kind: EndpointKind
  /** The credential's secret part, redacted from every message. */
  secret: string | null
  /** Where the credential came from (never the credential itself). */
  source: string
}

class SetupError extends Error {}

export function bedrockTransport(options: BedrockOptions = {}): Transport {
  const envOf = options.env ?? (() => process.env)
  const now = options.now ?? (() => new Date())
  return {
    /**
     * The shared Messages step itself, this step's preparation inside it: no generator of
     * this transport's own around the stream, so a delta crosses no extra async step.
     */
    stream(profile, req, opts): AsyncGenerator<NeutralEvent> {
      let source = ''
      const build = async (): Promise<StepRequest> => {
        try {
          const prepared = await prepareRequest(profile, req, envOf(), opts.signal, now())
          source = prepared.source
          return { request: prepared.encoded, secret: prepared.secret }
        } catch (err) {
          return setupFailure(err, opts.signal)
        }
      }
      const adjust = (e: ErrorEvent): ErrorEvent =>
        e.code === 'upstream_unauthorized' ? { ...e, message: `${e.message} (credentials: ${source})` } : e
      return messagesStep(build, opts, null, { adjust })
    },
  }
}

export const bedrock: Transport = bedrockTransport()

/**
 * The request of one model step. Throws EndpointError, CredentialError,
 * CredentialProcessError or SetupError, each with a message fit for the user.
 */
export async function prepareRequest(
  profile: TransportProfile,
  req: NeutralRequest,
  env: Env,
  signal: AbortSignal,
  date: Date,
): Promise<PreparedRequest> {
  // The profile's endpoint is checked first, so a hostile one never gets a credential read.
  const named = profile.endpoint ? checkEndpoint(profile.endpoint) : null
  const hook = env[BASE_URL_HOOK] ? hookBase(env[BASE_URL_HOOK] as string) : null
  let awsProfile: Promise<AwsProfile> | undefined
  const readProfile = () => {
    awsProfile ??= readAwsProfile(env)
    return awsProfile
  }
  const endpoint = named ?? (hook ? null : runtimeEndpoint(await regionOrFail(env, readProfile)))
  const kind = named?.kind ?? 'runtime'
  const url = `${hook ?? (endpoint as BedrockEndpoint).origin}${MESSAGES_PATH}`
  const auth = await resolveAuth(profile.api_key, { env, profile: readProfile, signal })
  const body = messagesBody(req)
  const headers = messagesHeaders()
  if (kind === 'runtime') {
    // The runtime names the API version in the body; mantle takes Anthropic's header.
    delete headers['anthropic-version']
    body.anthropic_version = RUNTIME_ANTHROPIC_VERSION
  }
  const text = JSON.stringify(body)
  // Signing takes the region of the endpoint's host; behind the hook, the environment's.
  const signingRegion = async () => endpoint?.region ?? regionOrFail(env, readProfile)
  const sent = await authorize(auth, { url, headers, body: text }, kind, signingRegion, date)
  return { encoded: { url, headers: sent, body: text }, kind, secret: secretOf(auth), source: sourceOf(auth) }
}

/** The headers with the credential: a key, a bearer token, or a SigV4 signature. */
async function authorize(
  auth: BedrockAuth,
  req: EncodedRequest,
  kind: EndpointKind,
  region: () => Promise<string>,
  date: Date,
): Promise<Record<string, string>> {
  if (auth.type === 'api_key') return { ...req.headers, 'x-api-key': auth.key }
  if (auth.type === 'bearer') return { ...req.headers, authorization: `Bearer ${auth.token}` }
  const signed = await signedHeaders(
    { url: req.url, method: 'POST', headers: req.headers, body: req.body },
    { credentials: auth.credentials, region: await region(), service: SIGNING_SERVICE[kind], date },
  )
  // The HTTP client sends the host itself (fetch refuses to be given one); it was signed as sent.
  const { host: _, ...rest } = signed
  return rest
}

/** AWS_REGION, else AWS_DEFAULT_REGION, else the active AWS profile's `region`. */
async function regionOrFail(env: Env, readProfile: () => Promise<AwsProfile>): Promise<string> {
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION || (await readProfile()).config?.region
  if (!region)
    throw new SetupError(
      'no AWS region: set AWS_REGION (or AWS_DEFAULT_REGION, or `region` in the AWS profile), or give the profile a Bedrock endpoint',
    )
  if (!isRegion(region)) throw new SetupError(`${JSON.stringify(region.slice(0, 64))} is not an AWS region`)
  return region
}

function secretOf(auth: BedrockAuth): string | null {
  if (auth.type === 'api_key') return auth.key
  if (auth.type === 'bearer') return auth.token
  return auth.credentials.sessionToken ?? auth.credentials.secretAccessKey
}

function sourceOf(auth: BedrockAuth): string {
  if (auth.type === 'api_key') return "the profile's key"
  if (auth.type === 'bearer') return 'AWS_BEARER_TOKEN_BEDROCK'
  return auth.source
}

/** The error event of a step that failed before anything was sent. */
function setupFailure(err: unknown, signal: AbortSignal): ErrorEvent {
  if (signal.aborted) return errorEvent('aborted', 'the request was aborted')
  const message = err instanceof Error ? err.message : String(err)
  if (err instanceof EndpointError || err instanceof SetupError)
    return errorEvent('upstream_rejected', message)
  // Nothing was sent: the cause is local, never the provider's refusal.
  if (err instanceof CredentialError) return errorEvent(err.code, message)
  if (err instanceof CredentialProcessError) return errorEvent('credentials_unusable', message)
  return errorEvent('upstream_rejected', `the bedrock request could not be prepared: ${message}`)
}

/** The transport the kernel finds by this folder's name (../transports.ts). */
export { bedrock as transport }
