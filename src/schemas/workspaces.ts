// Group `workspaces`: browsing the daemon host's directories to pick a session's workspace.
// Without `location`: the workspaces sessions use, most recently active first. With it: that
// directory's entries (directories first), and with include=preview a short look at it (its
// repository branch, README, AGENTS.md). Paths are the daemon host's; nothing remote.
import type { Static } from 'typebox'
import * as Type from 'typebox'
import { Continuation, Limit, Nullable, Timestamp, WorkspacePathOf } from './common.ts'
import { defineOps } from './op.ts'

/** Entries of one directory read at most; a larger one is listed in part (`truncated`). */
export const DIRECTORY_ENTRIES_MAX = 20_000
/** Characters of a README a preview shows. */
export const README_PREVIEW_CHARS = 4096

export const WorkspacesQuery = Type.Object(
  {
    location: Type.Optional(
      WorkspacePathOf('An absolute directory on the daemon host; without it, the recent workspaces'),
    ),
    include: Type.Optional(Type.Enum(['preview'], { description: 'preview: needs location' })),
    limit: Type.Optional(Limit(500, 100)),
    next: Type.Optional(Continuation),
  },
  { additionalProperties: false },
)
export type WorkspacesQuery = Static<typeof WorkspacesQuery>

export const WorkspaceEntry = Type.Object(
  {
    name: Type.String(),
    path: Type.String({ description: 'Absolute path on the daemon host' }),
    kind: Type.Enum(['directory', 'file', 'other', 'missing'], {
      description: 'What the path is now (a link is followed; `missing`: a recent workspace that is gone)',
    }),
    link: Type.Boolean({ description: 'The entry is a symbolic link' }),
    hidden: Type.Boolean({ description: 'The name starts with a dot' }),
    repository: Type.Boolean({ description: 'A directory holding .git' }),
    sessions: Nullable(Type.Integer({ minimum: 0, description: 'Recent view: sessions in this workspace' })),
    last_activity_at: Nullable(
      Type.String({ ...Timestamp, description: 'Recent view: the latest activity' }),
    ),
  },
  { additionalProperties: false, $id: 'WorkspaceEntry' },
)

export const WorkspacePreview = Type.Object(
  {
    repository: Nullable(
      Type.Object(
        {
          branch: Nullable(Type.String({ description: 'The checked-out branch; null when detached' })),
          head: Nullable(Type.String({ description: 'The commit when detached' })),
        },
        { additionalProperties: false },
      ),
    ),
    readme: Nullable(
      Type.Object(
        { name: Type.String(), text: Type.String(), truncated: Type.Boolean() },
        { additionalProperties: false },
      ),
    ),
    agents_md: Type.Boolean({ description: 'AGENTS.md is in the directory' }),
    directories: Type.Integer({ minimum: 0 }),
    files: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
)

export const WorkspaceRead = Type.Object(
  {
    location: Nullable(
      Type.Object(
        { path: Type.String(), parent: Nullable(Type.String({ description: 'null at the root' })) },
        { additionalProperties: false },
      ),
    ),
    items: Type.Array(WorkspaceEntry),
    truncated: Type.Boolean({
      description: `The directory holds more than ${DIRECTORY_ENTRIES_MAX} entries; only those read are listed`,
    }),
    preview: Nullable(WorkspacePreview),
    next: Nullable(Continuation),
  },
  { additionalProperties: false, $id: 'WorkspaceRead' },
)
export type WorkspaceRead = Static<typeof WorkspaceRead>
export type WorkspaceEntry = Static<typeof WorkspaceEntry>
export type WorkspacePreview = Static<typeof WorkspacePreview>

export const workspacesOps = defineOps({
  'workspaces.get': {
    method: 'GET',
    path: '/workspaces',
    summary: 'Recent workspaces, or the directories of a location',
    description:
      'Without location: the workspaces of existing sessions, most recently active first. With location: its entries, directories first then by name; include=preview adds a look at the directory (repository branch, README, AGENTS.md). Paths are the daemon host’s; nothing remote is signed in to.',
    tags: ['workspaces'],
    capability: 'workspace_browsing',
    query: WorkspacesQuery,
    responses: { 200: { description: 'The workspaces or the directory', schema: WorkspaceRead } },
    problems: [
      'workspace_not_absolute',
      'location_not_found',
      'location_not_directory',
      'location_unreadable',
      'invalid_continuation',
    ],
  },
})
