// Group `reload`: POST /sessions/{id}/reload reloads an idle session's composition (its MCP
// servers from settings now, its instructions) and/or the model catalogue the pickers read.
// Each target has its own outcome (docs/sessions.md, "Reload").
import type { Static } from 'typebox'
import * as Type from 'typebox'
import { Nullable } from './common.ts'
import { Problem } from './problems.ts'
import { InstructionSource, Quarantined } from './session-read.ts'

export const ReloadTarget = Type.Enum(['composition', 'models'])

export const ReloadRequest = Type.Object(
  {
    targets: Type.Array(ReloadTarget, {
      minItems: 1,
      maxItems: 2,
      uniqueItems: true,
      description: 'What to reload: `composition`, `models` or both',
    }),
  },
  { additionalProperties: false, $id: 'ReloadRequest' },
)
export type ReloadRequest = Static<typeof ReloadRequest>

export const ReloadResult = Type.Object(
  {
    composition: Type.Object(
      {
        outcome: Type.Enum(['reloaded', 'failed', 'not_requested'], {
          description:
            '`reloaded`: the MCP servers were brought to the settings now (quarantined ones retried) and the instructions read again; `loaded_revision` is the desired revision; `failed`: nothing changed (problem)',
        }),
        problem: Nullable(Problem),
        loaded_revision: Nullable(Type.Integer({ minimum: 1 })),
        needs_reload: Type.Boolean(),
        quarantine: Type.Array(Quarantined, {
          description: 'Servers still left out after the reload, each with its reason',
        }),
        instructions: Type.Array(InstructionSource),
      },
      { additionalProperties: false },
    ),
    models: Type.Object(
      {
        outcome: Type.Enum(['refreshed', 'failed', 'not_requested'], {
          description:
            '`refreshed`: the catalogue from settings `models.catalogue_url` replaced the cached one; `failed`: the cached catalogue is unchanged (problem)',
        }),
        problem: Nullable(Problem),
        source: Nullable(Type.String({ description: 'The URL the catalogue was read from' })),
        providers: Nullable(Type.Integer({ minimum: 0 })),
        models: Nullable(Type.Integer({ minimum: 0 })),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, $id: 'ReloadResult' },
)
export type ReloadResult = Static<typeof ReloadResult>
