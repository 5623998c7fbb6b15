// The credential of one bedrock model step, found in this order and never mixed (one
// source gives everything it sends):
//   1. the profile's saved key, sent as `x-api-key` without signing;
//   2. AWS_BEARER_TOKEN_BEDROCK, sent as `Authorization: Bearer`;
//   3. AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN), SigV4;
//   4. the active AWS profile (AWS_PROFILE, else `default`): static keys from the
//      credentials file, else static keys from the config file, else the config's
//      credential_process; SigV4.
// Nothing is cached: every step reads the environment and the files again and runs the
// process again. Not resolved (said so when a profile uses them): SSO, assume-role chains,
// web identity, instance or container metadata.

import { CodedError } from '../../util/coded-error.ts'
import type { AwsProfile, Env, Section } from './aws-files.ts'
import { type ProcessCredentials, runCredentialProcess } from './credential-process.ts'

export interface AwsCredentials {
  accessKeyId: string
  secretAccessKey: string
  sessionToken?: string
}

export type BedrockAuth =
  | { type: 'api_key'; key: string }
  | { type: 'bearer'; token: string }
  /** `source` says where the keys came from, for messages (never a key). */
  | { type: 'sigv4'; credentials: AwsCredentials; source: string }

/** No credential anywhere (`credentials_not_found`), or one that cannot be used. */
export class CredentialError extends CodedError<'credentials_not_found' | 'credentials_unusable'> {
  override readonly name = 'CredentialError'
  constructor(message: string, code: CredentialError['code'] = 'credentials_unusable') {
    super(code, message)
  }
}

export interface AuthOptions {
  env: Env
  /** Reads the active AWS profile's sections (once per step at most). */
  profile: () => Promise<AwsProfile>
  signal?: AbortSignal
  /** Runs credential_process; injectable for tests of the order. */
  runProcess?: (command: string, env: Env, signal?: AbortSignal) => Promise<ProcessCredentials>
}

/** Keys in a profile section that name a source hearth does not resolve. */
const UNRESOLVED = [
  'sso_session',
  'sso_start_url',
  'role_arn',
  'web_identity_token_file',
  'credential_source',
]

export async function resolveAuth(apiKey: string | null, opts: AuthOptions): Promise<BedrockAuth> {
  if (apiKey) return { type: 'api_key', key: apiKey }
  const { env } = opts
  if (env.AWS_BEARER_TOKEN_BEDROCK) return { type: 'bearer', token: env.AWS_BEARER_TOKEN_BEDROCK }
  const fromEnv = staticKeys(
    env.AWS_ACCESS_KEY_ID,
    env.AWS_SECRET_ACCESS_KEY,
    env.AWS_SESSION_TOKEN,
    'the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)',
  )
  if (fromEnv) return { type: 'sigv4', credentials: fromEnv, source: 'the environment' }
  return fromProfile(await opts.profile(), opts)
}

async function fromProfile(profile: AwsProfile, opts: AuthOptions): Promise<BedrockAuth> {
  const where = `profile ${profile.name}`
  const inCredentials = sectionKeys(profile.credentials, `${where} in ${profile.credentialsPath}`)
  if (inCredentials)
    return { type: 'sigv4', credentials: inCredentials, source: `${where} (credentials file)` }
  const inConfig = sectionKeys(profile.config, `${where} in ${profile.configPath}`)
  if (inConfig) return { type: 'sigv4', credentials: inConfig, source: `${where} (config file)` }
  const command = profile.config?.credential_process
  if (command) {
    const run = opts.runProcess ?? ((c, env, signal) => runCredentialProcess(c, { env, signal }))
    const credentials = await run(command, opts.env, opts.signal)
    return { type: 'sigv4', credentials, source: `${where} (credential_process)` }
  }
  const unresolved = UNRESOLVED.filter((k) => profile.config?.[k] || profile.credentials?.[k])
  if (unresolved.length > 0)
    throw new CredentialError(
      `${where} uses ${unresolved.join(', ')}, which hearth does not resolve; give it static keys or a credential_process, or set a key on the hearth profile`,
    )
  throw new CredentialError(
    `no AWS credentials found: save a Bedrock API key on the hearth profile, or set AWS_BEARER_TOKEN_BEDROCK, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give ${where} keys or a credential_process in ${profile.credentialsPath} or ${profile.configPath}`,
    'credentials_not_found',
  )
}

function sectionKeys(section: Section | undefined, where: string): AwsCredentials | null {
  if (!section) return null
  return staticKeys(
    section.aws_access_key_id,
    section.aws_secret_access_key,
    section.aws_session_token,
    where,
  )
}

/** A whole key pair, null when neither half is there; half a pair is an error, never completed from elsewhere. */
function staticKeys(
  id: string | undefined,
  secret: string | undefined,
  token: string | undefined,
  where: string,
): AwsCredentials | null {
  if (!id && !secret) return null
  if (!id || !secret)
    throw new CredentialError(
      `${where}: ${id ? 'an access key id without its secret access key' : 'a secret access key without its access key id'}`,
    )
  return token
    ? { accessKeyId: id, secretAccessKey: secret, sessionToken: token }
    : { accessKeyId: id, secretAccessKey: secret }
}
