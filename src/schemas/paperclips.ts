// Extension `paperclips`: text a person or a client clips to keep at hand across sessions
// (a command that worked, a snippet of an answer, a path), newest first. A clip may say
// where it came from (a workspace, a session). The routes exist while the extension is
// enabled.
import type { Static } from 'typebox'
import * as Type from 'typebox'
import { Continuation, Limit, Nullable, Timestamp, UuidV7Of, WorkspacePathOf } from './common.ts'
import { defineOps } from './op.ts'

/** Clips kept in all; the oldest must be deleted before more are added. */
export const PAPERCLIPS_MAX = 10_000
export const PAPERCLIP_TEXT_MAX = 65_536

export const Paperclip = Type.Object(
  {
    id: Type.String(),
    text: Type.String(),
    label: Nullable(Type.String({ description: 'A short name to find it by' })),
    workspace: Nullable(Type.String({ description: 'The workspace it came from' })),
    session_id: Nullable(Type.String({ description: 'The session it came from' })),
    created_at: Timestamp,
  },
  { additionalProperties: false, $id: 'Paperclip' },
)
export type Paperclip = Static<typeof Paperclip>

export const PaperclipCreate = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: PAPERCLIP_TEXT_MAX }),
    label: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 256 }))),
    workspace: Type.Optional(Nullable(WorkspacePathOf('An absolute path'))),
    session_id: Type.Optional(Nullable(UuidV7Of('An existing session'))),
  },
  { additionalProperties: false },
)
export type PaperclipCreate = Static<typeof PaperclipCreate>

export const PaperclipResource = Type.Object(
  { resource: Type.Object({ url: Type.String(), value: Paperclip }, { additionalProperties: false }) },
  { additionalProperties: false },
)

export const PaperclipPage = Type.Object(
  { items: Type.Array(Paperclip, { description: 'Newest first' }), next: Nullable(Continuation) },
  { additionalProperties: false },
)

export const PaperclipDeletion = Type.Object(
  { id: Type.String(), deleted_at: Timestamp },
  { additionalProperties: false },
)

const ListQuery = Type.Object(
  { limit: Type.Optional(Limit(200, 50)), next: Type.Optional(Continuation) },
  { additionalProperties: false },
)
const ClipParams = Type.Object(
  { clip_id: UuidV7Of('The clip, as the daemon named it') },
  { additionalProperties: false },
)

export const paperclipsOps = defineOps({
  'paperclips.list': {
    method: 'GET',
    path: '/extensions/paperclips/items',
    summary: 'List the clips, newest first',
    description: 'A page of clips (limit 1 to 200, default 50); next reads the page after it.',
    tags: ['paperclips'],
    extension: 'paperclips',
    query: ListQuery,
    responses: { 200: { description: 'A page of clips', schema: PaperclipPage } },
    problems: ['invalid_continuation'],
  },
  'paperclips.create': {
    method: 'POST',
    path: '/extensions/paperclips/items',
    summary: 'Clip a text',
    description:
      'The daemon names the clip (POST is not idempotent: after a lost answer, list before sending again).',
    tags: ['paperclips'],
    extension: 'paperclips',
    body: PaperclipCreate,
    bodyLimit: 80 * 1024,
    responses: { 201: { description: 'Clipped', schema: PaperclipResource, headers: ['Location'] } },
    problems: ['workspace_not_absolute', 'session_not_found', 'session_deleted', 'paperclips_full'],
  },
  'paperclips.get': {
    method: 'GET',
    path: '/extensions/paperclips/items/{clip_id}',
    summary: 'Read a clip',
    description: 'The clip as it was made: clips never change.',
    tags: ['paperclips'],
    extension: 'paperclips',
    params: ClipParams,
    responses: { 200: { description: 'The clip', schema: Paperclip } },
    problems: ['paperclip_not_found'],
  },
  'paperclips.delete': {
    method: 'DELETE',
    path: '/extensions/paperclips/items/{clip_id}',
    summary: 'Delete a clip',
    description:
      'Clips do not change, so no validator is needed: deleting an id twice is 404 the second time.',
    tags: ['paperclips'],
    extension: 'paperclips',
    params: ClipParams,
    responses: { 200: { description: 'Deleted', schema: PaperclipDeletion } },
    problems: ['paperclip_not_found'],
  },
})
