// Settings groups without secrets, as a read returns them and as a PATCH's merge patch changes
// them: `extensions` (enablement and the quota poller, kept in extensions.json), then the
// config.json groups `capabilities`, `models`, `ui`, `tools` (approval policy, step limit, roots,
// network, hidden paths), `compaction` (with the strategy and kept runs sessions also name)
// and `instructions`.
import type { Static } from 'typebox'
import * as Type from 'typebox'
import { ApprovalPolicyOf, Nullable } from './common.ts'
import { EXTENSIONS } from './extensions.ts'
import { CachePolicy } from './models.ts'
import { Removable, Text, Url } from './settings-fields.ts'

// ---- extensions (kept in extensions.json) ---------------------------------------------

const QuotaSettings = {
  enabled: Type.Boolean(),
  pollSeconds: Type.Integer({ minimum: 30, maximum: 86_400 }),
  busyPollSeconds: Type.Integer({ minimum: 30, maximum: 86_400 }),
}
export const ExtensionsRead = Type.Object(
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
export const ExtensionsPatch = Type.Object(
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
export const CapabilitiesRead = Type.Object(
  Object.fromEntries(OPTIONAL_CAPABILITIES.map((c) => [c, Type.Boolean()])),
  { additionalProperties: false },
)
export const CapabilitiesPatch = Type.Object(
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
export const ModelsRead = Type.Object(
  {
    catalogue_url: Url,
    overrides: Type.Record(Type.String(), ModelOverride),
    cache_rules: CacheRules,
  },
  { additionalProperties: false },
)
export const ModelsPatch = Type.Object(
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

export const UiRead = Type.Object(
  {
    dismissed_notices: Type.Array(Type.String()),
    theme: Nullable(Type.String()),
    show_reasoning: Type.Boolean(),
  },
  { additionalProperties: false },
)
export const UiPatch = Type.Object(
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
const MiB = 1024 * 1024
const snapshotFields = {
  enabled: Type.Boolean({
    description:
      'Whether runs take workspace snapshots (before their first call that is not a read, and at their end); default true',
  }),
  max_file_bytes: Type.Integer({
    minimum: 1024,
    maximum: 1024 * MiB,
    description: 'Files larger than this are not captured (nor restored); default 10 MiB',
  }),
  keep_runs: Type.Integer({
    minimum: 0,
    maximum: 100_000,
    description: 'The snapshots of the newest runs kept per session; older ones are pruned (default 100)',
  }),
  max_total_bytes: Type.Integer({
    minimum: MiB,
    maximum: 2 ** 50,
    description:
      'Bytes HOME/snapshots may hold; past it the oldest snapshots of any session go (default 2 GiB)',
  }),
}
const SnapshotsRead = Type.Object(snapshotFields, {
  additionalProperties: false,
  description: 'Workspace snapshots of runs, their diffs and restores: docs/checkpoints.md',
})
const SnapshotsPatch = Type.Object(
  Object.fromEntries(Object.entries(snapshotFields).map(([k, v]) => [k, Removable(v)])),
  { additionalProperties: false, description: 'Workspace snapshots: docs/checkpoints.md' },
)
export const ToolsRead = Type.Object(
  { ...toolFields, snapshots: SnapshotsRead },
  { additionalProperties: false },
)
export const ToolsPatch = Type.Object(
  {
    ...Object.fromEntries(Object.entries(toolFields).map(([k, v]) => [k, Removable(v)])),
    snapshots: Removable(SnapshotsPatch),
  },
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
export const CompactionRead = Type.Object(compactionFields, { additionalProperties: false })
export const CompactionPatch = Type.Object(
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
export const InstructionsRead = Type.Object(
  { replace: Nullable(ReplaceText), append: Nullable(AppendText), environment: EnvironmentFlag },
  { additionalProperties: false },
)
export const InstructionsPatch = Type.Object(
  { replace: Removable(ReplaceText), append: Removable(AppendText), environment: Removable(EnvironmentFlag) },
  { additionalProperties: false },
)
export type ExtensionsPatch = Static<typeof ExtensionsPatch>
export type ModelsPatch = Static<typeof ModelsPatch>
export type UiPatch = Static<typeof UiPatch>
