// Group `catalog`: GET /sessions/{id}/catalog lists what a session may be composed of (the
// candidates of its selection, and the command templates a client sends), in five sections
// in a fixed order, paged (docs/catalog.md). Reading it never reloads and never starts a kernel.
import type { Static } from 'typebox'
import * as Type from 'typebox'
import { Continuation, Limit, Nullable } from './common.ts'

export const CATALOG_KINDS = ['extensions', 'skills', 'instructions', 'mcp', 'commands'] as const
export type CatalogKind = (typeof CATALOG_KINDS)[number]
const Kind = Type.Enum([...CATALOG_KINDS])

export const CatalogQuery = Type.Object(
  {
    kind: Type.Optional(Kind),
    limit: Type.Optional(Limit(200, 50)),
    next: Type.Optional(Continuation),
  },
  { additionalProperties: false },
)
export type CatalogQuery = Static<typeof CatalogQuery>

const Revision = Type.String({ description: 'Hash of the candidate as discovered; changes when it does' })

/** How the session's selection treats a candidate: the default, its own entry, the result. */
const SelectionState = Type.Object(
  {
    key: Type.String({ description: 'The key of this candidate in the selection map of its kind' }),
    default: Type.Boolean({ description: 'On or off without a session entry (settings, discovery)' }),
    override: Nullable(Type.Boolean()),
    effective: Type.Boolean(),
  },
  { additionalProperties: false },
)

const common = {
  name: Type.String(),
  description: Nullable(Type.String()),
  revision: Revision,
}

const ExtensionCandidate = Type.Object(
  {
    kind: Type.Literal('extensions'),
    ...common,
    source: Type.Literal('builtin'),
    provider: Type.Boolean({ description: 'A provider extension (a profile’s `extension`)' }),
    implemented: Type.Boolean({ description: 'This build can run it' }),
    enabled: Type.Boolean({ description: 'Enabled in settings group extensions' }),
    requires: Type.Array(Type.String()),
    selection: SelectionState,
  },
  { additionalProperties: false },
)

const SkillCandidate = Type.Object(
  {
    kind: Type.Literal('skills'),
    ...common,
    source: Type.Enum(['workspace', 'home']),
    path: Type.String({ description: 'The SKILL.md file' }),
    truncated: Type.Boolean({ description: 'The SKILL.md is longer than the part the skill tool returns' }),
    selection: SelectionState,
  },
  { additionalProperties: false },
)

const InstructionCandidate = Type.Object(
  {
    kind: Type.Literal('instructions'),
    ...common,
    source: Type.Enum(['workspace', 'home']),
    path: Type.String({ description: 'The AGENTS.md file; the selection key' }),
    bytes: Type.Integer({ minimum: 0 }),
    state: Type.Enum(['loaded', 'off', 'skipped']),
    reason: Nullable(Type.String()),
    selection: SelectionState,
  },
  { additionalProperties: false },
)

const McpCandidate = Type.Object(
  {
    kind: Type.Literal('mcp'),
    ...common,
    source: Type.Literal('settings'),
    transport: Type.Enum(['stdio', 'http', 'invalid']),
    command: Nullable(Type.String({ description: 'stdio: the program (its arguments are not shown)' })),
    url: Nullable(Type.String({ description: 'http: the URL without user info, query or fragment' })),
    enabled: Type.Boolean({ description: 'Enabled in settings group mcp' }),
    secrets: Type.Array(Type.Enum(['bearerToken', 'headers', 'env']), {
      description: 'Which secrets creds.json holds for it (never their values)',
    }),
    selection: SelectionState,
  },
  { additionalProperties: false },
)

const CommandCandidate = Type.Object(
  {
    kind: Type.Literal('commands'),
    ...common,
    source: Type.Enum(['workspace', 'home']),
    path: Type.String(),
    argument_hint: Nullable(Type.String()),
    template: Type.String({
      description:
        'The prompt template (at most 16,384 characters); `$ARGUMENTS` stands for what follows the name',
    }),
    template_truncated: Type.Boolean(),
  },
  { additionalProperties: false },
)

export const CatalogCandidate = Type.Union([
  ExtensionCandidate,
  SkillCandidate,
  InstructionCandidate,
  McpCandidate,
  CommandCandidate,
])
export type CatalogCandidate = Static<typeof CatalogCandidate>

export const Catalog = Type.Object(
  {
    session_id: Type.String(),
    kind: Nullable(Kind),
    catalog_revision: Type.String({
      description:
        'Names the sections this page holds items of and hashes all of their candidates; send it as a change’s catalog_revision to refuse a selection made from a catalog that has since changed',
    }),
    sections: Type.Array(
      Type.Object(
        {
          kind: Kind,
          revision: Revision,
          total: Type.Integer({ minimum: 0, description: 'Candidates in the whole section' }),
        },
        { additionalProperties: false },
      ),
      { description: 'The sections this page holds items of' },
    ),
    items: Type.Array(CatalogCandidate),
    next: Nullable(Continuation),
    next_kind: Nullable(Kind),
  },
  { additionalProperties: false, $id: 'Catalog' },
)
export type Catalog = Static<typeof Catalog>
