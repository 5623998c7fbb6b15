// What a session is set to (its configuration resource) and the bodies that set it: the
// creation request of PUT /sessions/{id} and the merge patch of PATCH /sessions/{id}.
import type { Static } from 'typebox'
import * as Type from 'typebox'
import {
  ApprovalPolicyOf,
  Effort,
  ModelId,
  Nullable,
  ProfileName,
  SessionName,
  Timestamp,
  UuidV7,
  WorkspacePath,
} from './common.ts'

export const Preferences = Type.Object(
  {
    pinned: Type.Boolean(),
    pin_order: Nullable(Type.Integer()),
    archived: Type.Boolean(),
    opens: Type.Integer({ minimum: 0, description: 'Distinct visits (PUT visits); reads never count' }),
  },
  { additionalProperties: false },
)

const SelectionMap = Type.Record(Type.String({ maxLength: 256 }), Type.Boolean())
export const Selection = Type.Object(
  { extensions: SelectionMap, skills: SelectionMap, instructions: SelectionMap, mcp: SelectionMap },
  { additionalProperties: false },
)

export const WorkspaceChange = Type.Object(
  {
    workspace: Type.String(),
    requested_at: Timestamp,
    state: Type.Enum(['waiting_for_idle']),
  },
  { additionalProperties: false, description: 'A committed family move this busy session follows once idle' },
)

const AllowGitWrites = Type.Boolean({
  description:
    "Whether tools and commands may write the repositories' .git (hooks, config); false keeps it read-only (docs/tools.md)",
})

export const ConfigurationValue = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    workspace: Type.String(),
    provider_profile: Type.String(),
    model: Type.String(),
    effort: Nullable(Type.String()),
    preferences: Preferences,
    selection: Selection,
    catalog_revision: Nullable(Type.String()),
    approval_policy: Nullable(
      ApprovalPolicyOf(
        "Which tool calls run without asking (docs/tools.md); null follows the settings' tools.approval_policy",
      ),
    ),
    allow_git_writes: AllowGitWrites,
    revision: Type.Integer({ minimum: 1 }),
    family_revision: Type.Integer({ minimum: 1 }),
    workspace_change: Nullable(WorkspaceChange),
  },
  { additionalProperties: false },
)

export const ConfigurationResource = Type.Object(
  { url: Type.String(), etag: Type.String(), value: ConfigurationValue },
  { additionalProperties: false, $id: 'SessionConfiguration' },
)
export type ConfigurationResource = Static<typeof ConfigurationResource>

// ---- Creation -------------------------------------------------------------------------

const CommonCreate = {
  name: Type.Optional(SessionName),
  provider_profile: Type.Optional(ProfileName),
  model: Type.Optional(ModelId),
  effort: Type.Optional(Nullable(Effort)),
}

export const CreateNew = Type.Object(
  { kind: Type.Literal('new'), workspace: WorkspacePath, ...CommonCreate },
  { additionalProperties: false, $id: 'SessionCreateNew' },
)
const ForkFields = {
  source_id: UuidV7,
  through_entry: Type.Optional(
    Nullable(
      Type.Integer({ minimum: 0, description: 'Last history position copied; null or absent copies all' }),
    ),
  ),
  workspace: Type.Optional(WorkspacePath),
  ...CommonCreate,
}
export const CreateForked = Type.Object(
  { kind: Type.Literal('forked'), ...ForkFields },
  { additionalProperties: false, $id: 'SessionCreateForked' },
)
export const CreateChild = Type.Object(
  {
    kind: Type.Literal('child'),
    parent_id: UuidV7,
    workspace: Type.Optional(WorkspacePath),
    ...CommonCreate,
  },
  { additionalProperties: false, $id: 'SessionCreateChild' },
)
export const SessionCreationRequest = Type.Union([CreateNew, CreateForked, CreateChild], {
  $id: 'SessionCreationRequest',
  discriminator: { propertyName: 'kind' },
})
export type SessionCreationRequest = Static<typeof SessionCreationRequest>

// ---- Configuration change --------------------------------------------------------------

/** Entries a selection map may hold, so a configuration stays far below the 1 MiB frame limit. */
export const MAX_SELECTION_ENTRIES = 4096
/** Bytes of JSON the four maps may take together: a read shows them three times. */
export const MAX_SELECTION_BYTES = 64 * 1024
const PatchMap = Type.Record(Type.String({ minLength: 1, maxLength: 256 }), Nullable(Type.Boolean()), {
  maxProperties: MAX_SELECTION_ENTRIES,
})
export const SessionChangeRequest = Type.Object(
  {
    name: Type.Optional(SessionName),
    provider_profile: Type.Optional(
      Type.String({
        ...ProfileName,
        description:
          "Another provider profile; without model in the same change the session takes that profile's model",
      }),
    ),
    model: Type.Optional(
      Type.String({ ...ModelId, description: 'The model every step of the session is sent to' }),
    ),
    effort: Type.Optional(Nullable(Effort)),
    preferences: Type.Optional(
      Type.Object(
        {
          pinned: Type.Optional(Type.Boolean()),
          pin_order: Type.Optional(Nullable(Type.Integer())),
          archived: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
    selection: Type.Optional(
      Type.Object(
        {
          extensions: Type.Optional(PatchMap),
          skills: Type.Optional(PatchMap),
          instructions: Type.Optional(PatchMap),
          mcp: Type.Optional(PatchMap),
        },
        { additionalProperties: false },
      ),
    ),
    catalog_revision: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 256,
          description:
            'A catalog page’s catalog_revision: when the sections it names have changed since, the change is 409 catalog_changed and nothing is written',
        }),
      ),
    ),
    approval_policy: Type.Optional(
      Nullable(
        ApprovalPolicyOf(
          'Which tool calls run without asking; null follows the settings (tools.approval_policy)',
        ),
      ),
    ),
    allow_git_writes: Type.Optional(AllowGitWrites),
    workspace: Type.Optional(WorkspacePath),
    family_revision: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false, $id: 'SessionChangeRequest' },
)
export type SessionChangeRequest = Static<typeof SessionChangeRequest>

export const SessionChange = Type.Object(
  {
    resource: ConfigurationResource,
    followers: Type.Array(Type.String(), {
      description: 'Busy descendants that will follow a committed workspace move once idle',
    }),
  },
  { additionalProperties: false, $id: 'SessionChange' },
)
