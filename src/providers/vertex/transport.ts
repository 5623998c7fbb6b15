// The `vertex` transport: Gemini models on Google Vertex AI with application default
// credentials (no sign-in). Each step: the body is built first (an effort the model does
// not take fails here, with nothing sent), the project and location are resolved (the
// profile's, else GOOGLE_CLOUD_PROJECT / GOOGLE_CLOUD_LOCATION), the ADC file is read and
// exchanged for an access token (adc.ts; no cache), then
// `POST {host}/v1/projects/{project}/locations/{location}/publishers/google/models/{model}:streamGenerateContent?alt=sse`
// (`:generateContent` for a request whose answer is used only whole, a summary).
// The host is `{location}-aiplatform.googleapis.com`, the bare `aiplatform.googleapis.com`
// for `global`; HEARTH_VERTEX_BASE_URL replaces it (tests, and the only way to plain
// http on loopback). Replay sends text, thinking text and calls, each call with the
// skip placeholder signature (encode.ts defaults): signatures are not kept for Vertex.
import { arch, platform } from 'node:os'
import { VERSION } from '../../build-info.ts'
import { geminiBody } from '../gemini/encode.ts'
import { EffortError } from '../gemini/models.ts'
import { geminiHeaders, geminiStep } from '../gemini/transport.ts'
import type { PreparedRequest } from '../openai-compatible/transport.ts'
import { type ErrorEvent, errorEvent } from '../shared/errors.ts'
import type { NeutralEvent, NeutralRequest, StreamOptions, Transport, TransportProfile } from '../types.ts'
import { AdcError, type AdcOptions, adcAccessToken } from './adc.ts'

export type VertexMethod = 'generateContent' | 'streamGenerateContent'

/** A location as it appears in a host name: `us-central1`, `europe-west4`, `global`. */
const LOCATION = /^[a-z][a-z0-9-]{0,62}$/

/** The Vertex host of a location (`global`: the bare global host), unless a base URL replaces it. */
export function vertexHost(location: string, base = process.env.HEARTH_VERTEX_BASE_URL): string {
  if (base && base.trim() !== '') return base.trim().replace(/\/+$/, '')
  return location === 'global'
    ? 'https://aiplatform.googleapis.com'
    : `https://${location}-aiplatform.googleapis.com`
}

/** The URL of a model method; the streaming one asks for SSE (`alt=sse`). Throws on a non-URL. */
export function vertexUrl(
  project: string,
  location: string,
  model: string,
  method: VertexMethod,
  base?: string,
): string {
  const bare = model.replace(/^(?:publishers\/google\/)?models\//, '')
  const path = `/v1/projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(location)}/publishers/google/models/${encodeURIComponent(bare).replace(/%40/g, '@')}:${method}`
  const url = `${vertexHost(location, base)}${path}${method === 'streamGenerateContent' ? '?alt=sse' : ''}`
  return new URL(url).toString()
}

export interface VertexPlace {
  project: string
  location: string
}

/** The profile's project and location, else the environment's; an error event when one is missing. */
export function vertexPlace(
  profile: TransportProfile,
  env: NodeJS.ProcessEnv = process.env,
): VertexPlace | ErrorEvent {
  const project = profile.project?.trim() || env.GOOGLE_CLOUD_PROJECT?.trim() || ''
  const location = profile.location?.trim() || env.GOOGLE_CLOUD_LOCATION?.trim() || ''
  if (project === '')
    return errorEvent(
      'upstream_rejected',
      "no Vertex AI project: set the profile's project or GOOGLE_CLOUD_PROJECT",
    )
  if (location === '')
    return errorEvent(
      'upstream_rejected',
      "no Vertex AI location: set the profile's location or GOOGLE_CLOUD_LOCATION (us-central1, global, …)",
    )
  if (!LOCATION.test(location))
    return errorEvent(
      'upstream_rejected',
      `the Vertex AI location ${JSON.stringify(location)} is not a location name`,
    )
  return { project, location }
}

export function userAgent(): string {
  return `hearth/${VERSION} (${platform()}; ${arch()})`
}

const CREDENTIALS_ADVICE = 'check the application default credentials (gcloud auth application-default login)'

/** A refused token says where credentials come from. */
function advise(event: ErrorEvent): ErrorEvent {
  if (event.code !== 'upstream_unauthorized' || event.message.includes('application default credentials'))
    return event
  return { ...event, message: `${event.message.replace(/[\s.;:]+$/, '')}; ${CREDENTIALS_ADVICE}` }
}

/** Options tests inject; the daemon's kernels use the defaults. */
export interface VertexOptions {
  env?: NodeJS.ProcessEnv
  adc?: Partial<AdcOptions>
}

/**
 * The access token and the request that carries it, or the error that ends the step: the
 * credentials are read and exchanged here, on every step (no cache).
 */
async function prepare(
  place: VertexPlace,
  model: string,
  method: VertexMethod,
  body: Record<string, unknown>,
  opts: StreamOptions,
  env: NodeJS.ProcessEnv,
  adc: Partial<AdcOptions> | undefined,
): Promise<PreparedRequest> {
  let token: Awaited<ReturnType<typeof adcAccessToken>>
  try {
    token = await adcAccessToken({ signal: opts.signal, fetch: opts.fetch, env, ...adc })
  } catch (err) {
    if (opts.signal.aborted) return errorEvent('aborted', 'the request was aborted')
    if (err instanceof AdcError) return errorEvent(err.code, err.message)
    return errorEvent('upstream_unauthorized', `the application default credentials failed: ${String(err)}`)
  }
  const headers: Record<string, string> = {
    ...geminiHeaders(),
    authorization: `Bearer ${token.accessToken}`,
    'user-agent': userAgent(),
  }
  if (method === 'generateContent') headers.accept = 'application/json'
  if (token.quotaProject) headers['x-goog-user-project'] = token.quotaProject
  const url = vertexUrl(place.project, place.location, model, method, env.HEARTH_VERTEX_BASE_URL)
  return { request: { url, headers, body: JSON.stringify(body) }, secret: token.accessToken }
}

export function vertexTransport(vopts: VertexOptions = {}): Transport {
  return {
    /**
     * The shared Gemini step itself, its token exchange inside it: no generator of this
     * transport's own around the stream, so a delta crosses no extra async step.
     */
    stream(
      profile: TransportProfile,
      req: NeutralRequest,
      opts: StreamOptions,
    ): AsyncGenerator<NeutralEvent> {
      const env = vopts.env ?? process.env
      const model = req.model || profile.model
      let body: Record<string, unknown>
      try {
        body = geminiBody({ ...req, model })
      } catch (err) {
        if (err instanceof EffortError) return only(errorEvent('effort_unsupported', err.message))
        return only(errorEvent('upstream_rejected', `the request could not be encoded: ${String(err)}`))
      }
      const place = vertexPlace(profile, env)
      if ('type' in place) return only(place)
      // A whole answer (a summary) takes the unstreamed route: one JSON answer, read by the
      // same decoder (whole.ts).
      const method: VertexMethod = req.whole ? 'generateContent' : 'streamGenerateContent'
      return geminiStep(() => prepare(place, model, method, body, opts, env, vopts.adc), opts, null, {
        adjust: advise,
      })
    },
  }
}

async function* only(event: NeutralEvent): AsyncGenerator<NeutralEvent> {
  yield event
}

export const vertex: Transport = vertexTransport()

/** The transport the kernel finds by this folder's name (../transports.ts). */
export { vertex as transport }
