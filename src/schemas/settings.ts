// Settings: the group list, each group's read and patch schemas by name (the groups' own
// schemas are in ./settings-providers.ts, ./settings-mcp.ts and ./settings-simple.ts; their
// shared building blocks in ./settings-fields.ts), and the ops GET and PATCH /settings. Secrets
// are write-only: a patch sets them with a string and removes them with null; a read shows
// only `{saved: true}` in their place. Every field is documented in docs/settings.md.
import type { TSchema } from 'typebox'
import * as Type from 'typebox'
import { defineOps } from './op.ts'
import { McpPatch, McpRead } from './settings-mcp.ts'
import { ProvidersPatch, ProvidersRead } from './settings-providers.ts'
import {
  CapabilitiesPatch,
  CapabilitiesRead,
  CompactionPatch,
  CompactionRead,
  ExtensionsPatch,
  ExtensionsRead,
  InstructionsPatch,
  InstructionsRead,
  ModelsPatch,
  ModelsRead,
  ToolsPatch,
  ToolsRead,
  UiPatch,
  UiRead,
} from './settings-simple.ts'

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
