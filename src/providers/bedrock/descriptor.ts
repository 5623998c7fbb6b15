// Claude-family models on Amazon Bedrock, through its Anthropic Messages route, signed with
// the user's AWS credentials (or a Bedrock API key saved on the profile).
import { CACHE_BREAKPOINTS, type ProviderDescriptor } from '../descriptor.ts'
import { checkEndpoint, EndpointError } from './endpoint.ts'
import { inferenceProfileModel, isBedrockClaude } from './models.ts'

export const bedrock: ProviderDescriptor = {
  id: 'bedrock',
  extension: { version: 1, description: 'Claude-family models on Amazon Bedrock', requires: ['models'] },
  // One vendor whatever the (regional) host; a listing shows its Claude rows (models.ts).
  catalogue: { provider: 'amazon-bedrock', lists: isBedrockClaude, baseModel: inferenceProfileModel },
  // Bedrock's Messages route for Claude takes Anthropic's `cache_control` breakpoints.
  cache: [{ host: '', policy: CACHE_BREAKPOINTS }],
  profile: { needsEndpoint: false, needsModel: false, check: checkProfile },
  replaysReasoningText: false,
  quota: null,
  signIn: null,
}

/**
 * A bedrock profile's endpoint must be a Bedrock host and nothing more (no credentials,
 * port, path, query or fragment); the transport refuses anything else at every step, so
 * such a profile is not saved either.
 */
function checkProfile(p: Readonly<Record<string, unknown>>): string | null {
  if (p.endpoint === undefined || p.endpoint === null || p.endpoint === '') return null
  try {
    checkEndpoint(String(p.endpoint))
    return null
  } catch (err) {
    if (!(err instanceof EndpointError)) throw err
    return err.message
  }
}
