// Settings groups: for each, the public representation a read returns and the merge
// patch a PATCH accepts (its validator, also served by GET /settings). Secrets are
// write-only: a patch sets them with a string and removes them with null; a read shows
// only `{saved: true}` in their place. Every field is documented in docs/settings.md.
import type { Static, TSchema } from 'typebox'
import * as Type from 'typebox'
import { ApprovalPolicyOf, Effort, NAME_PATTERN, Nullable, ProfileName } from './common.ts'
import { EXTENSIONS, PROFILE_EXTENSION_NOTE, PROVIDER_EXTENSIONS } from './extensions.ts'
import { CachePolicy } from './models.ts'
import { defineOps } from './op.ts'

export const SETTINGS_GROUPS = [
  'providers',
  'mcp',
  'extensions',
  'capabilities',
  'models',
  'ui',
  'tools',
  'compaction',
  'instructions',
] as const
export type SettingsGroup = (typeof SETTINGS_GROUPS)[number]

/** A map keyed by names matching `pattern` (JSON Schema propertyNames). */
const MapOf = <V extends TSchema>(pattern: string, value: V, options: Record<string, unknown> = {}) =>
  Type.Record(Type.String(), value, { propertyNames: { pattern }, ...options })
/** A merge-patch member: absent keeps, null removes (back to the default), a value sets. */
const Removable = <V extends TSchema>(schema: V) => Type.Optional(Nullable(schema))
const Text = (max: number, description?: string) =>
  Type.String({ minLength: 1, maxLength: max, ...(description ? { description } : {}) })
const Url = Type.String({
  format: 'uri',
  pattern: '^https?://',
  maxLength: 4096,
  examples: ['https://api.openai.com/v1'],
})
const Saved = Type.Object(
  { saved: Type.Literal(true) },
  { additionalProperties: false, description: 'A secret is saved in creds.json; its value is never shown' },
)
/** A write-only secret in a patch: a string sets it, null removes it. */
const SecretPatch = (max: number) => Nullable(Type.String({ minLength: 1, maxLength: max }))
const HeaderName = "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$"
const EnvName = '^[A-Za-z_][A-Za-z0-9_]{0,127}$'

// ---- providers ------------------------------------------------------------------------

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
const ProfilePatch = Type.Object(
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
const ChatgptSignInRead = Type.Object(signInFields, { additionalProperties: false })
const ClaudeSignInRead = Type.Object(claudeSignInFields, { additionalProperties: false })
const SignInRead = Type.Object(
  { chatgpt: ChatgptSignInRead, claude: ClaudeSignInRead },
  { additionalProperties: false },
)
const removableFields = (fields: Record<string, TSchema>) =>
  Removable(
    Type.Object(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, Removable(v)])), {
      additionalProperties: false,
    }),
  )
const SignInPatch = Type.Object(
  { chatgpt: removableFields(signInFields), claude: removableFields(claudeSignInFields) },
  { additionalProperties: false },
)

const ProvidersRead = Type.Object(
  {
    default_profile: Nullable(ProfileName),
    profiles: Type.Record(Type.String(), ProfileRead),
    sign_in: SignInRead,
  },
  { additionalProperties: false },
)
const ProvidersPatch = Type.Object(
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

// ---- mcp ------------------------------------------------------------------------------

const serverFields = {
  command: Nullable(Text(4096, 'Local server: the program to run')),
  args: Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 256 }),
  cwd: Nullable(Text(4096)),
  url: Nullable(Url),
  enabled: Type.Boolean(),
  startup_timeout_ms: Nullable(Type.Integer({ minimum: 100, maximum: 600_000 })),
  tool_timeout_ms: Nullable(Type.Integer({ minimum: 100, maximum: 3_600_000 })),
  enabled_tools: Nullable(Type.Array(Text(256), { maxItems: 1024, description: 'null: every tool' })),
  disabled_tools: Type.Array(Text(256), { maxItems: 1024 }),
}
const McpServerRead = Type.Object(
  {
    ...serverFields,
    env: Type.Record(Type.String(), Saved, { description: 'Names of the saved environment variables' }),
    headers: Type.Record(Type.String(), Saved, { description: 'Names of the saved headers' }),
    bearerToken: Nullable(Saved),
  },
  { additionalProperties: false },
)
const McpServerPatch = Type.Object(
  {
    ...Object.fromEntries(Object.entries(serverFields).map(([k, v]) => [k, Removable(v)])),
    env: Type.Optional(Nullable(MapOf(EnvName, SecretPatch(32_768), { maxProperties: 128 }))),
    headers: Type.Optional(Nullable(MapOf(HeaderName, SecretPatch(8192), { maxProperties: 64 }))),
    bearerToken: Type.Optional(SecretPatch(8192)),
  },
  { additionalProperties: false },
)
const McpRead = Type.Object(
  { servers: Type.Record(Type.String(), McpServerRead) },
  { additionalProperties: false },
)
const McpPatch = Type.Object(
  {
    servers: Type.Optional(
      MapOf(NAME_PATTERN, Nullable(McpServerPatch), {
        maxProperties: 256,
        description: 'null removes a server',
      }),
    ),
  },
  { additionalProperties: false },
)

// ---- extensions (kept in extensions.json) ---------------------------------------------

const QuotaSettings = {
  enabled: Type.Boolean(),
  pollSeconds: Type.Integer({ minimum: 30, maximum: 86_400 }),
  busyPollSeconds: Type.Integer({ minimum: 30, maximum: 86_400 }),
}
const ExtensionsRead = Type.Object(
  {
    extensions: Type.Record(
      Type.String(),
      Type.Object(
        { enabled: Type.Boolean(), requires: Type.Array(Type.String()) },
        { additionalProperties: false },
      ),
    ),
    quota: Type.Object(QuotaSettings, { additionalProperties: false }),
  },
  { additionalProperties: false },
)
const ExtensionsPatch = Type.Object(
  {
    extensions: Type.Optional(
      Type.Partial(
        Type.Object(
          Object.fromEntries(
            EXTENSIONS.map((e) => [
              e,
              Nullable(Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false })),
            ]),
          ),
          { additionalProperties: false },
        ),
      ),
    ),
    quota: Type.Optional(
      Type.Object(Object.fromEntries(Object.entries(QuotaSettings).map(([k, v]) => [k, Removable(v)])), {
        additionalProperties: false,
      }),
    ),
  },
  { additionalProperties: false },
)

// ---- capabilities, models, ui ---------------------------------------------------------

/** Capabilities an operator may turn off; the others are always on. */
export const OPTIONAL_CAPABILITIES = ['zstd_requests', 'storage_report'] as const
const CapabilitiesRead = Type.Object(
  Object.fromEntries(OPTIONAL_CAPABILITIES.map((c) => [c, Type.Boolean()])),
  { additionalProperties: false },
)
const CapabilitiesPatch = Type.Object(
  Object.fromEntries(OPTIONAL_CAPABILITIES.map((c) => [c, Removable(Type.Boolean())])),
  { additionalProperties: false },
)

const modelFacts = {
  context_window: Nullable(Type.Integer({ minimum: 1 })),
  max_output_tokens: Nullable(Type.Integer({ minimum: 1 })),
  reasoning: Nullable(Type.Boolean()),
  image_input: Nullable(Type.Boolean()),
}
const ModelOverride = Type.Object(modelFacts, { additionalProperties: false })
const CacheRule = Type.Object(
  {
    extension: Type.String({ maxLength: 256, description: '"" matches any extension' }),
    host: Type.String({ maxLength: 4096, description: '"" matches any host' }),
    policy: CachePolicy,
  },
  { additionalProperties: false },
)
const CacheRules = Type.Array(CacheRule, {
  maxItems: 256,
  description: 'Prompt-cache rules consulted before the built-in ones (GET /models?view=cache-policy)',
})
const ModelsRead = Type.Object(
  {
    catalogue_url: Url,
    overrides: Type.Record(Type.String(), ModelOverride),
    cache_rules: CacheRules,
  },
  { additionalProperties: false },
)
const ModelsPatch = Type.Object(
  {
    catalogue_url: Type.Optional(Nullable(Url)),
    overrides: Type.Optional(
      Type.Record(
        Text(256),
        Nullable(
          Type.Object(Object.fromEntries(Object.entries(modelFacts).map(([k, v]) => [k, Type.Optional(v)])), {
            additionalProperties: false,
          }),
        ),
        { maxProperties: 1024, description: 'Facts of a model id that win over the catalogue; null removes' },
      ),
    ),
    cache_rules: Removable(CacheRules),
  },
  { additionalProperties: false },
)

const UiRead = Type.Object(
  {
    dismissed_notices: Type.Array(Type.String()),
    theme: Nullable(Type.String()),
    show_reasoning: Type.Boolean(),
  },
  { additionalProperties: false },
)
const UiPatch = Type.Object(
  {
    dismissed_notices: Removable(
      Type.Array(Text(128), { maxItems: 1024, description: 'Replaces the list (merge patch)' }),
    ),
    theme: Removable(Text(64)),
    show_reasoning: Removable(Type.Boolean()),
  },
  { additionalProperties: false },
)

// ---- tools ----------------------------------------------------------------------------

export { APPROVAL_POLICIES, type ApprovalPolicy } from './common.ts'
export const ApprovalPolicySchema = ApprovalPolicyOf(
  '`read-only`: only read tools are offered; `ask`: reads run, writes and commands wait for an approval; `auto`: every call runs (commands inside the sandbox)',
)
const HiddenPath = Type.String({
  minLength: 1,
  maxLength: 4096,
  pattern: '^(/|~/)',
  description: 'An absolute path, or one under the home directory written `~/…`',
})
const toolFields = {
  approval_policy: ApprovalPolicySchema,
  max_steps: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    description: 'Model requests one run may make; a run that reaches it ends with step_limit_reached',
  }),
  allowed_roots: Type.Array(
    Type.String({ minLength: 1, maxLength: 4096, pattern: '^/', description: 'An absolute directory' }),
    { maxItems: 64, description: 'Directories besides the workspace that tools may read and write' },
  ),
  network: Type.Boolean({ description: 'Whether commands (shell, jobs) may use the network' }),
  hidden_paths: Type.Array(HiddenPath, {
    maxItems: 256,
    description:
      "Paths hidden from commands and file tools besides the defaults (the user's credentials: docs/tools.md)",
  }),
  visible_paths: Type.Array(HiddenPath, {
    maxItems: 256,
    description: 'Paths of the default hidden list (or of hidden_paths) that are not hidden after all',
  }),
}
const ToolsRead = Type.Object(toolFields, { additionalProperties: false })
const ToolsPatch = Type.Object(
  Object.fromEntries(Object.entries(toolFields).map(([k, v]) => [k, Removable(v)])),
  { additionalProperties: false },
)

// ---- compaction ------------------------------------------------------------------------

export const COMPACTION_STRATEGIES = ['summarize', 'truncate'] as const
export type CompactionStrategyName = (typeof COMPACTION_STRATEGIES)[number]
export const CompactionStrategySchema = Type.Enum([...COMPACTION_STRATEGIES], {
  description:
    "`summarize`: the session's model writes a summary of the older runs, which later requests send in their place; `truncate`: the older runs are left out, with a note saying so (no model call)",
})
export const KeepTurns = Type.Integer({
  minimum: 0,
  maximum: 1000,
  description: 'The last runs (the user messages each took and all that answered them) kept verbatim',
})
const compactionFields = {
  auto: Type.Boolean({
    description: 'Compact before a request whose estimate would pass threshold_percent of the model window',
  }),
  threshold_percent: Type.Integer({
    minimum: 10,
    maximum: 100,
    description: 'Share of the model window a request may fill before automatic compaction',
  }),
  strategy: CompactionStrategySchema,
  keep_turns: KeepTurns,
}
const CompactionRead = Type.Object(compactionFields, { additionalProperties: false })
const CompactionPatch = Type.Object(
  Object.fromEntries(Object.entries(compactionFields).map(([k, v]) => [k, Removable(v)])),
  { additionalProperties: false },
)

// ---- instructions ----------------------------------------------------------------------

/** Characters of text a setting of the `instructions` group holds at most. */
export const MAX_INSTRUCTIONS_TEXT = 32_768
const InstructionsText = (description: string) =>
  Type.String({ maxLength: MAX_INSTRUCTIONS_TEXT, description })
const ReplaceText = InstructionsText(
  "Sent instead of hearth's own instructions; an empty string sends none (null: hearth's own)",
)
const AppendText = InstructionsText(
  "Added after hearth's own instructions (or their replacement), before the instruction files",
)
const EnvironmentFlag = Type.Boolean({
  description:
    'Whether the system text ends with the environment block (workspace, OS, approval policy, sandbox, date, git); default true',
})
const InstructionsRead = Type.Object(
  { replace: Nullable(ReplaceText), append: Nullable(AppendText), environment: EnvironmentFlag },
  { additionalProperties: false },
)
const InstructionsPatch = Type.Object(
  { replace: Removable(ReplaceText), append: Removable(AppendText), environment: Removable(EnvironmentFlag) },
  { additionalProperties: false },
)

export const GROUP_READ: Record<SettingsGroup, TSchema> = {
  providers: ProvidersRead,
  mcp: McpRead,
  extensions: ExtensionsRead,
  capabilities: CapabilitiesRead,
  models: ModelsRead,
  ui: UiRead,
  tools: ToolsRead,
  compaction: CompactionRead,
  instructions: InstructionsRead,
}
export const GROUP_PATCH: Record<SettingsGroup, TSchema> = {
  providers: ProvidersPatch,
  mcp: McpPatch,
  extensions: ExtensionsPatch,
  capabilities: CapabilitiesPatch,
  models: ModelsPatch,
  ui: UiPatch,
  tools: ToolsPatch,
  compaction: CompactionPatch,
  instructions: InstructionsPatch,
}
export type ProvidersPatch = Static<typeof ProvidersPatch>
export type McpPatch = Static<typeof McpPatch>
export type ExtensionsPatch = Static<typeof ExtensionsPatch>
export type ModelsPatch = Static<typeof ModelsPatch>
export type UiPatch = Static<typeof UiPatch>

const groupsObject = (of: Record<SettingsGroup, TSchema>) =>
  Type.Object(Object.fromEntries(SETTINGS_GROUPS.map((g) => [g, of[g]])), { additionalProperties: false })

export const SettingsRead = Type.Union(
  [
    Type.Object(
      {
        settings: groupsObject(GROUP_READ),
        validators: Type.Record(Type.String(), Type.Unknown(), {
          description: "Each group's PATCH validator: the JSON Schema its merge patch must satisfy",
        }),
        etags: Type.Record(Type.String(), Type.String(), {
          description: "Each group's current ETag, usable as If-Match for PATCH /settings?group=G",
        }),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        group: Type.Enum([...SETTINGS_GROUPS]),
        settings: Type.Unknown({ description: "The group's representation" }),
      },
      { additionalProperties: false },
    ),
  ],
  { $id: 'SettingsRead' },
)

export const SettingsChange = Type.Object(
  {
    group: Type.Enum([...SETTINGS_GROUPS]),
    etag: Type.String({ description: "The group's new ETag (also the ETag header)" }),
    settings: Type.Unknown({ description: "The group's representation after the change" }),
    changed: Type.Array(Type.String(), { description: 'Top-level fields of the group that changed' }),
    reload_sessions: Type.Integer({
      minimum: 0,
      description: 'Sessions whose composition changed (they now show needs_reload)',
    }),
  },
  { additionalProperties: false, $id: 'SettingsChange' },
)

export const SettingsPatchBody = Type.Union(
  SETTINGS_GROUPS.map((g) => GROUP_PATCH[g]),
  { $id: 'SettingsPatch', description: 'The merge patch of the group named by the query' },
)

const GroupQuery = Type.Object(
  { group: Type.Optional(Type.Enum([...SETTINGS_GROUPS])) },
  { additionalProperties: false },
)
const RequiredGroupQuery = Type.Object(
  { group: Type.Enum([...SETTINGS_GROUPS]) },
  { additionalProperties: false },
)

export const settingsOps = defineOps({
  'settings.get': {
    method: 'GET',
    path: '/settings',
    summary: 'Read the settings',
    description:
      'Without group: all six groups, each group\'s PATCH validator and ETag. With group: that group only; the ETag header covers that representation. Secrets read as {"saved": true}.',
    tags: ['settings'],
    query: GroupQuery,
    responses: { 200: { description: 'The settings', schema: SettingsRead, headers: ['ETag'] } },
    problems: ['settings_unreadable'],
  },
  'settings.patch': {
    method: 'PATCH',
    path: '/settings',
    summary: 'Change one settings group (merge patch)',
    description:
      'The whole candidate group is validated, then its public part (config.json or extensions.json) and its secrets (creds.json) commit together. If-Match carries the group ETag.',
    tags: ['settings'],
    query: RequiredGroupQuery,
    ifMatch: 'required',
    body: SettingsPatchBody,
    bodyMediaType: 'application/merge-patch+json',
    deferBodyCheck: true,
    responses: { 200: { description: 'The committed change', schema: SettingsChange, headers: ['ETag'] } },
    problems: [
      'precondition_required',
      'precondition_failed',
      'invalid_settings',
      'extension_dependency',
      'extension_in_use',
      'provider_unsupported',
      'settings_unreadable',
    ],
  },
})
