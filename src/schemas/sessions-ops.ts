// Operations of group `sessions`.
import { EmptyRequest } from './common.ts'
import { CollectionSSE, SessionSSE } from './events.ts'
import { defineOps } from './op.ts'
import {
  ConfigurationQuery,
  ConfigurationResource,
  DeletionQuery,
  SessionChange,
  SessionChangeRequest,
  SessionCreationRequest,
  SessionDeletion,
  SessionListQuery,
  SessionPage,
  SessionParams,
  SessionRead,
  SessionReadQuery,
  Visit,
  VisitParams,
} from './sessions.ts'

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
})
