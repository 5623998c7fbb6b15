// Extension `work`: work items kept per workspace (a task list people and sessions share).
// Items nest (parent_id), may point at the session and run that work on them, and carry a
// revision that is their ETag. Every operation names its workspace in the query; an item of
// another workspace is not found. The routes exist while the extension is enabled.
import type { Static } from 'typebox'
import * as Type from 'typebox'
import { Continuation, Limit, Nullable, Timestamp, UuidV7Of, WorkspacePath } from './common.ts'
import { defineOps } from './op.ts'

export const WORK_STATUSES = ['open', 'in_progress', 'done', 'cancelled'] as const
/** Items one workspace may hold. */
export const WORK_ITEMS_PER_WORKSPACE = 10_000
export const WORK_TITLE_MAX = 512
export const WORK_NOTES_MAX = 65_536

const Status = Type.Enum(WORK_STATUSES, {
  description: '`open` (new), `in_progress`, `done` or `cancelled`',
})
const Title = Type.String({ minLength: 1, maxLength: WORK_TITLE_MAX })
const Notes = Type.String({ maxLength: WORK_NOTES_MAX })
const Ref = (what: string) => Nullable(UuidV7Of(what))

export const WorkItem = Type.Object(
  {
    id: Type.String(),
    workspace: Type.String({ description: 'The absolute workspace directory the item belongs to' }),
    title: Type.String(),
    notes: Type.String(),
    parent_id: Nullable(Type.String()),
    session_id: Nullable(Type.String({ description: 'The session working on the item' })),
    run_id: Nullable(Type.String({ description: 'The run of that session working on it' })),
    status: Status,
    revision: Type.String({ description: 'Changes with every edit; the ETag is this revision quoted' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false, $id: 'WorkItem' },
)

const Notification = Type.Object(
  {
    state: Type.Enum(['not_requested', 'queued', 'failed'], {
      description:
        "`queued`: a note waits for the session's next run; `failed`: the edit committed but the note was not queued",
    }),
    code: Nullable(Type.String({ description: 'Why the note was not queued (a problem code)' })),
    detail: Nullable(Type.String()),
  },
  { additionalProperties: false },
)

export const WorkChange = Type.Object(
  {
    resource: Type.Object(
      { url: Type.String(), etag: Type.String(), value: WorkItem },
      { additionalProperties: false },
    ),
    notification: Notification,
  },
  { additionalProperties: false },
)

export const ExtensionDeletion = Type.Object(
  {
    resource: Type.Object(
      { url: Type.String(), id: Type.String(), deleted_at: Timestamp },
      { additionalProperties: false },
    ),
    notification: Notification,
  },
  { additionalProperties: false },
)

export const WorkPage = Type.Object(
  {
    items: Type.Array(WorkItem, { description: 'Oldest first' }),
    next: Nullable(Continuation),
  },
  { additionalProperties: false },
)

export const WorkCreate = Type.Object(
  {
    title: Title,
    notes: Type.Optional(Notes),
    status: Type.Optional(Status),
    parent_id: Type.Optional(Ref('An item of the same workspace')),
    session_id: Type.Optional(Ref('An existing session')),
    run_id: Type.Optional(Ref('A run of session_id')),
  },
  { additionalProperties: false },
)

export const WorkPatch = Type.Object(
  {
    title: Type.Optional(Title),
    notes: Type.Optional(Notes),
    status: Type.Optional(Status),
    parent_id: Type.Optional(Ref('An item of the same workspace, not the item or one below it')),
    session_id: Type.Optional(Ref('An existing session')),
    run_id: Type.Optional(Ref('A run of session_id')),
  },
  { additionalProperties: false, description: 'A merge patch: absent keeps, null clears' },
)

export const WorkListQuery = Type.Object(
  { workspace: WorkspacePath, limit: Type.Optional(Limit(200, 100)), next: Type.Optional(Continuation) },
  { additionalProperties: false },
)
export const WorkQuery = Type.Object({ workspace: WorkspacePath }, { additionalProperties: false })
export const WorkDeleteQuery = Type.Object(
  {
    workspace: WorkspacePath,
    notify_session_id: Type.Optional(UuidV7Of('A session to leave a note for, read at its next run')),
  },
  { additionalProperties: false },
)
export const WorkItemParams = Type.Object(
  { item_id: UuidV7Of('The item, as the daemon named it') },
  { additionalProperties: false },
)

export type WorkItem = Static<typeof WorkItem>
export type WorkCreate = Static<typeof WorkCreate>
export type WorkPatch = Static<typeof WorkPatch>
export type WorkNotification = Static<typeof Notification>

const ITEM_PROBLEMS = ['workspace_not_absolute', 'work_item_not_found'] as const
const LINK_PROBLEMS = ['work_parent_not_found', 'session_not_found', 'session_deleted'] as const

export const workOps = defineOps({
  'work.list': {
    method: 'GET',
    path: '/extensions/work/items',
    summary: "List a workspace's work items",
    description: 'Oldest first, in pages. Needs the `work` extension enabled.',
    tags: ['work'],
    extension: 'work',
    query: WorkListQuery,
    responses: { 200: { description: 'A page of items', schema: WorkPage } },
    problems: ['workspace_not_absolute', 'invalid_continuation'],
  },
  'work.create': {
    method: 'POST',
    path: '/extensions/work/items',
    summary: 'Create a work item',
    description:
      'The daemon names the item (POST is not idempotent: after a lost answer, list the workspace before sending again). The workspace must be an existing directory.',
    tags: ['work'],
    extension: 'work',
    query: WorkQuery,
    body: WorkCreate,
    responses: {
      201: { description: 'Created', schema: WorkChange, headers: ['Location', 'ETag'] },
    },
    problems: [
      'workspace_not_absolute',
      'workspace_not_found',
      'workspace_not_directory',
      'work_items_full',
      'work_run_without_session',
      ...LINK_PROBLEMS,
    ],
  },
  'work.get': {
    method: 'GET',
    path: '/extensions/work/items/{item_id}',
    summary: 'Read a work item',
    description:
      'The item of the workspace named by the workspace parameter, with its ETag for a later PATCH or DELETE.',
    tags: ['work'],
    extension: 'work',
    params: WorkItemParams,
    query: WorkQuery,
    responses: { 200: { description: 'The item', schema: WorkItem, headers: ['ETag'] } },
    problems: [...ITEM_PROBLEMS],
  },
  'work.patch': {
    method: 'PATCH',
    path: '/extensions/work/items/{item_id}',
    summary: 'Change a work item (merge patch)',
    description:
      'If-Match with the item ETag. A parent must be an item of the same workspace that is neither this item nor one below it.',
    tags: ['work'],
    extension: 'work',
    params: WorkItemParams,
    query: WorkQuery,
    ifMatch: 'required',
    body: WorkPatch,
    bodyMediaType: 'application/merge-patch+json',
    readOnly: ['/id', '/workspace', '/revision', '/created_at', '/updated_at'],
    responses: { 200: { description: 'The committed change', schema: WorkChange, headers: ['ETag'] } },
    problems: [
      ...ITEM_PROBLEMS,
      'read_only_field',
      'work_parent_cycle',
      'work_run_without_session',
      ...LINK_PROBLEMS,
    ],
  },
  'work.delete': {
    method: 'DELETE',
    path: '/extensions/work/items/{item_id}',
    summary: 'Delete a work item',
    description:
      'If-Match with the item ETag; an item with children is kept (409). With notify_session_id, a note saying so is queued for that session after the deletion commits: the session reads it at its next run. A note that cannot be queued leaves the deletion committed and says why in `notification`.',
    tags: ['work'],
    extension: 'work',
    params: WorkItemParams,
    query: WorkDeleteQuery,
    ifMatch: 'required',
    responses: { 200: { description: 'Deleted', schema: ExtensionDeletion } },
    problems: [...ITEM_PROBLEMS, 'work_item_has_children'],
  },
})
