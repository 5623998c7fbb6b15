// Group `sessions`: every operation whose id starts with `sessions.`, on the session tree
// and on one session (reads, configuration, deletion, visits, interrupt, context, catalog,
// reload, kernel upgrade). A session's own shapes are in session-read.ts and
// session-configuration.ts; those of its context, catalog, reload and kernel in theirs.
import type { Static } from 'typebox'
import * as Type from 'typebox'
import { Catalog, CatalogQuery } from './catalog.ts'
import { Continuation, EmptyRequest, Limit, Nullable, SessionParams, Timestamp, UuidV7 } from './common.ts'
import { CompactionRequest, CompactionResult, ContextQuery, ContextRead } from './context.ts'
import { CollectionSSE, SessionSSE } from './events.ts'
import { ActiveOutputParams, ActiveOutputQuery, EntryContentPage } from './history.ts'
import { Interruption, InterruptRequest } from './inputs.ts'
import { KernelUpgradeResult } from './kernel.ts'
import { defineOps } from './op.ts'
import { ReloadRequest, ReloadResult } from './reload.ts'
import {
  ConfigurationResource,
  SessionChange,
  SessionChangeRequest,
  SessionCreationRequest,
} from './session-configuration.ts'
import { SessionMcpServers, SessionMcpServersRequest } from './session-mcp.ts'
import { SessionRead, SessionSummary } from './session-read.ts'

const Str = (max = 4096) => Type.String({ maxLength: max })

// ---- Deletion --------------------------------------------------------------------------

export const SessionDeletion = Type.Object(
  {
    scope: Type.Enum(['leaf', 'subtree']),
    outcome: Type.Enum(['deleted', 'partial', 'failed']),
    members: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          depth: Type.Integer(),
          outcome: Type.Enum(['deleted', 'interrupted_then_deleted', 'failed']),
          code: Nullable(Type.String()),
          detail: Nullable(Type.String()),
        },
        { additionalProperties: false },
      ),
      { description: 'Every member, deepest first, with its own outcome' },
    ),
    family_revision: Nullable(Type.Integer()),
  },
  { additionalProperties: false, $id: 'SessionDeletion' },
)

// ---- Visits ----------------------------------------------------------------------------

export const Visit = Type.Object(
  {
    id: Type.String(),
    session_id: Type.String(),
    visited_at: Timestamp,
    opens: Type.Integer({ minimum: 1, description: 'The session open count right after this visit counted' }),
  },
  { additionalProperties: false, $id: 'Visit' },
)

// ---- Paths, queries --------------------------------------------------------------------

export const VisitParams = Type.Object(
  { session_id: UuidV7, visit_id: UuidV7 },
  { additionalProperties: false },
)

const Bool = Type.Boolean()
export const SessionListQuery = Type.Object(
  {
    scope: Type.Optional(Type.Enum(['roots', 'all'])),
    parent_id: Type.Optional(UuidV7),
    family_id: Type.Optional(UuidV7),
    workspace: Type.Optional(Str()),
    search: Type.Optional(Type.String({ maxLength: 256 })),
    archived: Type.Optional(Bool),
    pinned: Type.Optional(
      Type.Boolean({
        description:
          'Only pinned (true) or unpinned (false) sessions: a client shows the pinned first without reading every page',
      }),
    ),
    needs_reload: Type.Optional(Bool),
    sort: Type.Optional(Type.Enum(['activity', 'frequent'])),
    limit: Type.Optional(Limit(200, 50)),
    next: Type.Optional(Continuation),
  },
  { additionalProperties: false },
)
export type SessionListQuery = Static<typeof SessionListQuery>

export const SessionPage = Type.Object(
  { items: Type.Array(SessionSummary), next: Nullable(Continuation) },
  { additionalProperties: false, $id: 'SessionPage' },
)

export const SessionReadQuery = Type.Object(
  {
    view: Type.Optional(Type.Literal('configuration')),
    tail: Type.Optional(Type.Integer({ minimum: 0, maximum: 200, default: 100 })),
    after_generation: Type.Optional(Type.Integer({ minimum: 1 })),
    after_seq: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
)

export const ConfigurationQuery = Type.Object(
  { view: Type.Literal('configuration') },
  { additionalProperties: false },
)
export const DeletionQuery = Type.Object(
  {
    view: Type.Literal('configuration'),
    scope: Type.Optional(Type.Enum(['leaf', 'subtree'])),
    family_revision: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
)

export const sessionsOps = defineOps({
  'sessions.list': {
    method: 'GET',
    path: '/sessions',
    summary: 'List sessions, or subscribe to collection invalidations',
    description:
      'JSON: a page of summaries (default scope roots, or all when parent_id or family_id is given). With Accept: text/event-stream: a `ready` frame, then invalidation frames for sessions in the same scope; sort, limit and next are refused there; no cursor, no replay.',
    tags: ['sessions'],
    query: SessionListQuery,
    responses: {
      200: {
        description: 'A page, or the collection stream',
        schema: SessionPage,
        stream: CollectionSSE,
        headers: ['Vary'],
      },
    },
    problems: ['invalid_scope', 'invalid_continuation', 'session_not_found', 'family_not_found'],
  },
  'sessions.get': {
    method: 'GET',
    path: '/sessions/{session_id}',
    summary: 'Read a session, its configuration, or subscribe to its stream',
    description:
      'JSON: SessionRead, or with view=configuration the configuration resource {url, etag, value}. With Accept: text/event-stream: the session stream (no view). A fresh subscription gets a snapshot with up to `tail` history entries, then live events; a reconnect sends after_generation and after_seq (or Last-Event-ID `<generation>:<sequence>`) and gets exactly the missed events.',
    tags: ['sessions'],
    params: SessionParams,
    query: SessionReadQuery,
    responses: {
      200: {
        description: 'The session, its configuration, or its stream',
        schema: SessionRead,
        alternatives: [ConfigurationResource],
        stream: SessionSSE,
        headers: ['ETag', 'Vary'],
      },
    },
    problems: ['session_not_found', 'session_deleted', 'invalid_stream_position'],
  },
  'sessions.create': {
    method: 'PUT',
    path: '/sessions/{session_id}',
    summary: 'Create a session (new, forked or child)',
    description:
      'Create-only: If-None-Match: * is required; an existing id is 412 and GET shows creation.submitted. The session, its family membership and its first event commit together. Kind `forked` copies a source history into a new family (`fork` is accepted as its former name and recorded as `forked`). A family holds at most 1024 sessions: a child beyond that is 429 family_full.',
    tags: ['sessions'],
    params: SessionParams,
    ifNoneMatch: 'required',
    body: SessionCreationRequest,
    responses: { 201: { description: 'Created', schema: SessionRead, headers: ['Location', 'ETag'] } },
    problems: [
      'session_deleted',
      'workspace_not_absolute',
      'workspace_not_found',
      'workspace_not_directory',
      'source_unavailable',
      'entry_out_of_range',
      'parent_unavailable',
      'family_deleting',
      'family_full',
    ],
  },
  'sessions.configure': {
    method: 'PATCH',
    path: '/sessions/{session_id}',
    summary: 'Change a session configuration (merge patch)',
    description:
      'Send view=configuration and If-Match with the configuration ETag. Ordinary fields commit together. A workspace move is a standalone change carrying family_revision; it moves the whole subtree, and busy members follow once idle.',
    tags: ['sessions'],
    params: SessionParams,
    query: ConfigurationQuery,
    ifMatch: 'required',
    body: SessionChangeRequest,
    bodyMediaType: 'application/merge-patch+json',
    readOnly: ['/id', '/revision', '/workspace_change', '/preferences/opens'],
    responses: { 200: { description: 'The committed change', schema: SessionChange } },
    problems: [
      'session_not_found',
      'session_deleted',
      'read_only_field',
      'workspace_change_not_standalone',
      'family_revision_required',
      'workspace_not_absolute',
      'workspace_not_found',
      'workspace_not_directory',
      'session_busy',
      'family_deleting',
      'selection_too_large',
      'catalog_changed',
    ],
  },
  'sessions.delete': {
    method: 'DELETE',
    path: '/sessions/{session_id}',
    summary: 'Delete a session (leaf) or its subtree',
    description:
      'Send view=configuration and If-Match. A leaf must be idle with no children. A subtree deletion needs family_revision, gates new members, interrupts busy members and deletes deepest first, reporting each member. Afterwards the id reads 410 session_deleted.',
    tags: ['sessions'],
    params: SessionParams,
    query: DeletionQuery,
    ifMatch: 'required',
    responses: { 200: { description: 'What was deleted', schema: SessionDeletion } },
    problems: [
      'session_not_found',
      'session_deleted',
      'session_busy',
      'session_has_children',
      'family_deleting',
    ],
  },
  'sessions.visit': {
    method: 'PUT',
    path: '/sessions/{session_id}/visits/{visit_id}',
    summary: 'Record a visit (counts one open per visit id)',
    description:
      "The first PUT of a visit id raises the session's preferences.opens by one; a repeat returns the same visit and counts nothing. Reads never count. opens is part of the configuration, so a visit changes its ETag.",
    tags: ['sessions'],
    params: VisitParams,
    body: EmptyRequest,
    responses: { 200: { description: 'The visit', schema: Visit } },
    problems: ['session_not_found', 'session_deleted'],
  },
  'sessions.interrupt': {
    method: 'POST',
    path: '/sessions/{session_id}/interrupt',
    summary: 'Interrupt the run the client saw and cancel the inputs it saw',
    description:
      'Send the run_id and input_order read from the session. Only that run is stopped (its partial output is kept, marked interrupted) and only waiting inputs up to through_input_order are cancelled, so a retry can never reach a later run or newer inputs.',
    tags: ['inputs'],
    params: SessionParams,
    body: InterruptRequest,
    responses: { 200: { description: 'What the interrupt did', schema: Interruption } },
    problems: ['session_not_found', 'session_deleted'],
  },
  'sessions.active_output': {
    method: 'GET',
    path: '/sessions/{session_id}/active-output/{content_id}',
    summary: 'Read the output of the run in progress up to a snapshot',
    description:
      'snapshot comes from the session’s active_output item and fixes the byte cutoff. Pages hold at most 262,144 UTF-8 bytes; keep the snapshot when following next. Once the run ends the snapshot is 410 snapshot_stale: read the entry from the history.',
    tags: ['history'],
    params: ActiveOutputParams,
    query: ActiveOutputQuery,
    responses: { 200: { description: 'A piece', schema: EntryContentPage } },
    problems: ['session_not_found', 'session_deleted', 'snapshot_stale', 'invalid_continuation'],
  },
  'sessions.context': {
    method: 'GET',
    path: '/sessions/{session_id}/context',
    summary: 'Read what the next request would hold, a section of it, or the requests sent',
    description:
      'view=summary (default): the sections of the next request (instructions, tools, the compaction summary, the runs sent verbatim) with token estimates that add up to estimated_tokens, the model window and the compaction settings; it never prepares a request. view=section: snapshot_id, section_id and page (from 0) are required, the text of that section in pages of 65,536 characters; a snapshot the context has moved past is 410 context_changed. view=requests: the model requests this session sent (the last 1,000), ascending, paged with after, limit and next.',
    tags: ['context'],
    capability: 'context',
    params: SessionParams,
    query: ContextQuery,
    responses: { 200: { description: 'The context view', schema: ContextRead } },
    problems: [
      'session_not_found',
      'session_deleted',
      'invalid_context_query',
      'context_changed',
      'section_not_found',
      'invalid_continuation',
    ],
  },
  'sessions.compaction': {
    method: 'POST',
    path: '/sessions/{session_id}/compaction',
    summary: 'Compact the model context of an idle session',
    description:
      'Chooses a strategy (kept by the session for later compactions, automatic ones included) and compacts: the older runs are summarized by the session’s model (or left out, strategy truncate) and the last keep_turns runs stay verbatim. The history stays whole; a compaction entry records the summary, and later requests send it in place of the runs it covers. The selection and the compaction are reported apart: a chosen strategy is kept although the compaction fails. A busy session is 409 session_busy.',
    tags: ['context'],
    params: SessionParams,
    body: CompactionRequest,
    responses: { 200: { description: 'The selection and the compaction', schema: CompactionResult } },
    problems: ['session_not_found', 'session_deleted', 'session_busy'],
  },
  'sessions.catalog': {
    method: 'GET',
    path: '/sessions/{session_id}/catalog',
    summary: 'List the candidates of a session’s composition and its command templates',
    description:
      'Sections extensions, skills, instructions, mcp and commands, in that order (or only `kind`), paged with limit and next; a continuation names the section it resumes in (next_kind). Each candidate carries its revision and its selection state; the page carries catalog_revision. Reading never reloads and never starts a kernel; no secret is shown.',
    tags: ['catalog'],
    capability: 'catalog',
    params: SessionParams,
    query: CatalogQuery,
    responses: { 200: { description: 'A page of the catalog', schema: Catalog } },
    problems: ['session_not_found', 'session_deleted', 'invalid_continuation'],
  },
  'sessions.reload': {
    method: 'POST',
    path: '/sessions/{session_id}/reload',
    summary: 'Reload the composition or the model catalogue of an idle session',
    description:
      'Targets `composition` (the MCP servers from settings now, quarantined ones started again, and the instructions read again; the session then shows needs_reload false), `models` (the model catalogue the pickers read is downloaded again from settings models.catalogue_url) or both. Each target has its own outcome: a confirmed success is kept when the other fails. Nothing is replayed. A busy session is 409 session_busy.',
    tags: ['sessions'],
    params: SessionParams,
    body: ReloadRequest,
    responses: { 200: { description: 'The outcome of each target', schema: ReloadResult } },
    problems: ['session_not_found', 'session_deleted', 'session_busy'],
  },
  'sessions.mcp_servers': {
    method: 'GET',
    path: '/sessions/{session_id}/mcp-servers',
    summary: 'List a session’s own MCP servers',
    description:
      'The servers a client gave this session beside those of settings group mcp (docs/mcp.md, "A session’s own servers"); secrets by name only. They live in the daemon’s memory: empty after a restart until a client gives them again.',
    tags: ['sessions'],
    params: SessionParams,
    responses: { 200: { description: 'The session’s own servers', schema: SessionMcpServers } },
    problems: ['session_not_found', 'session_deleted'],
  },
  'sessions.mcp_servers_replace': {
    method: 'PUT',
    path: '/sessions/{session_id}/mcp-servers',
    summary: 'Replace a session’s own MCP servers',
    description:
      'Servers for this session only, loaded by its kernel from the next run or reload beside those of settings group mcp (one of the same name is replaced for this session). Kept in the daemon’s memory only, never in settings or the store; secrets (env, headers) go to the kernel and are shown by name only.',
    tags: ['sessions'],
    params: SessionParams,
    body: SessionMcpServersRequest,
    bodyLimit: 1024 * 1024,
    responses: { 200: { description: 'The session’s own servers', schema: SessionMcpServers } },
    problems: ['session_not_found', 'session_deleted'],
  },
  'sessions.kernel_upgrade': {
    method: 'POST',
    path: '/sessions/{session_id}/kernel/upgrade',
    summary: 'Move an idle session onto a kernel of the bundle on disk',
    description:
      "Stages a kernel process of the kernel bundle on disk (after an update), validates it (its start-up handshake, its protocol version, a ping), then swaps the session onto it and gives the old one up. A failed stage or validation leaves the session on its old kernel, jobs untouched (outcome `failed`). The swap stops the session's background jobs (children of the old kernel): they are listed in `stopped_jobs`, never restarted. `kernel.stale` of a session read says when an upgrade would help. A busy session is 409 session_busy.",
    tags: ['sessions'],
    params: SessionParams,
    body: EmptyRequest,
    responses: { 200: { description: 'What the upgrade did', schema: KernelUpgradeResult } },
    problems: ['session_not_found', 'session_deleted', 'session_busy'],
  },
})
