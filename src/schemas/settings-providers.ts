// Settings group `providers`: the profiles (an extension, its endpoint, model and tuning, a
// write-only api_key), the default profile, and the OAuth clients sign-ins use, as a read
// returns them and as a PATCH's merge patch changes them.
import type { Static, TSchema } from 'typebox'
import * as Type from 'typebox'
import { Effort, NAME_PATTERN, Nullable, ProfileName } from './common.ts'
import { PROFILE_EXTENSION_NOTE, PROVIDER_EXTENSIONS } from './extensions.ts'
import { MapOf, Removable, Saved, SecretPatch, Text, Url } from './settings-fields.ts'

const profileFields = {
  extension: Type.Enum([...PROVIDER_EXTENSIONS], {
    description: PROFILE_EXTENSION_NOTE,
  }),
  endpoint: Nullable(Url),
  protocol: Nullable(Type.Enum(['responses', 'chat_completions'])),
  model: Nullable(Text(256, 'Model id sent to the provider')),
  effort: Nullable(Effort),
  image_edge: Nullable(
    Type.Integer({
      minimum: 64,
      maximum: 8192,
      description: 'Longest image edge sent; larger images are scaled down',
    }),
  ),
  account_id: Nullable(
    Text(256, 'Binds the profile to one signed-in account; null rotates through the pool'),
  ),
  project: Nullable(Text(256, 'Cloud project (vertex, antigravity)')),
  location: Nullable(
    Text(64, "Cloud location (vertex); bedrock takes the endpoint's region or the AWS environment's"),
  ),
  stream_idle_timeout_ms: Nullable(Type.Integer({ minimum: 100, maximum: 3_600_000 })),
  request_max_retries: Nullable(Type.Integer({ minimum: 0, maximum: 10 })),
}

export const ProfileRead = Type.Object(
  {
    ...Object.fromEntries(Object.entries(profileFields).map(([k, v]) => [k, Type.Optional(v)])),
    extension: profileFields.extension,
    api_key: Nullable(Saved),
    read_only: Type.Optional(
      Type.Boolean({
        description:
          'A profile the daemon adds itself (`demo` with --demo): listed, usable as default_profile, never stored or changed',
      }),
    ),
  },
  { additionalProperties: false },
)
export const ProfilePatch = Type.Object(
  {
    ...Object.fromEntries(Object.entries(profileFields).map(([k, v]) => [k, Type.Optional(v)])),
    api_key: Type.Optional(SecretPatch(4096)),
  },
  { additionalProperties: false },
)
/** The OAuth client a sign-in uses; a registered app of one's own may replace the public one. */
const signInFields = {
  issuer: Url,
  client_id: Text(256),
  callback_port: Type.Integer({ minimum: 1, maximum: 65535 }),
}
/** The Claude client: its authorize and token hosts differ, so only the client and port are set here. */
const claudeSignInFields = { client_id: signInFields.client_id, callback_port: signInFields.callback_port }
/** The Copilot device flow: its client and the GitHub host (github.com, or a GitHub Enterprise Cloud host). */
const copilotSignInFields = {
  client_id: signInFields.client_id,
  host: Type.String({
    minLength: 1,
    maxLength: 253,
    pattern: '^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)+$',
    description:
      'The GitHub host signed in to: github.com, or a GitHub Enterprise Cloud host such as octocorp.ghe.com',
    examples: ['github.com'],
  }),
}
const ChatgptSignInRead = Type.Object(signInFields, { additionalProperties: false })
const ClaudeSignInRead = Type.Object(claudeSignInFields, { additionalProperties: false })
const CopilotSignInRead = Type.Object(copilotSignInFields, { additionalProperties: false })
const SignInRead = Type.Object(
  { chatgpt: ChatgptSignInRead, claude: ClaudeSignInRead, copilot: CopilotSignInRead },
  { additionalProperties: false },
)
const removableFields = (fields: Record<string, TSchema>) =>
  Removable(
    Type.Object(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, Removable(v)])), {
      additionalProperties: false,
    }),
  )
const SignInPatch = Type.Object(
  {
    chatgpt: removableFields(signInFields),
    claude: removableFields(claudeSignInFields),
    copilot: removableFields(copilotSignInFields),
  },
  { additionalProperties: false },
)

export const ProvidersRead = Type.Object(
  {
    default_profile: Nullable(ProfileName),
    profiles: Type.Record(Type.String(), ProfileRead),
    sign_in: SignInRead,
  },
  { additionalProperties: false },
)
export const ProvidersPatch = Type.Object(
  {
    default_profile: Type.Optional(Nullable(ProfileName)),
    profiles: Type.Optional(
      MapOf(NAME_PATTERN, Nullable(ProfilePatch), {
        maxProperties: 256,
        description: 'null removes a profile',
      }),
    ),
    sign_in: Removable(SignInPatch),
  },
  { additionalProperties: false },
)
export type ProvidersPatch = Static<typeof ProvidersPatch>
