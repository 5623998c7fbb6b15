// Group `snapshots`: what a run changed in the workspace's files (its `before` and `after`
// snapshots), one file's diff, the session's runs that changed files, and restores (putting
// the files back to how they were before a run; a restore of a restore is a redo).
// docs/checkpoints.md explains the words and the threat model.
import type { Static } from 'typebox'
import * as Type from 'typebox'
import { Continuation, Limit, Nullable, SessionParams, Timestamp, UuidV7, UuidV7Of } from './common.ts'
import { defineOps } from './op.ts'

const CAP = 'snapshots'

/** The bound of a diff's text (longer ones are cut, with truncated true). */
export const MAX_DIFF_BYTES = 256 * 1024
/** Files one restore may name. */
export const MAX_RESTORE_FILES = 1000

const AbsoluteRoot = Type.String({
  minLength: 1,
  maxLength: 4096,
  pattern: '^/',
  description: 'The absolute path of a root (the workspace or an allowed root)',
  examples: ['/home/me/project'],
})
const RelativePath = Type.String({
  minLength: 1,
  maxLength: 4096,
  description: 'A path relative to its root, "/"-separated',
  examples: ['src/main.ts'],
})
const Mode = Nullable(
  Type.String({
    description:
      "Git's file mode: 100644, 100755 (executable), 120000 (a symlink), 160000 (a nested repository)",
  }),
)
const Count = Type.Integer({ minimum: 0 })

export const RunParams = Type.Object(
  { session_id: UuidV7, run_id: UuidV7Of('The run (run.started `run_id`)') },
  { additionalProperties: false },
)
export const RestoreParams = Type.Object(
  { session_id: UuidV7, restore_id: UuidV7Of('A client-generated UUIDv7 naming the restore') },
  { additionalProperties: false },
)

export const FileChange = Type.Object(
  {
    root: Type.String(),
    path: Type.String(),
    old_path: Nullable(Type.String({ description: 'A renamed file: its path before' })),
    status: Type.Enum(['added', 'modified', 'deleted', 'renamed', 'type_changed']),
    old_mode: Mode,
    new_mode: Mode,
    binary: Type.Boolean({ description: 'A binary file: named, never diffed' }),
    additions: Nullable(Count),
    deletions: Nullable(Count),
    size_before: Nullable(Count),
    size_after: Nullable(Count),
  },
  { additionalProperties: false },
)
export type FileChange = Static<typeof FileChange>

export const SkippedFile = Type.Object(
  {
    root: Type.String(),
    path: Type.String(),
    reason: Type.Enum(['too_large', 'unreadable'], {
      description: 'too_large: over tools.snapshots.max_file_bytes; neither captured nor restored',
    }),
  },
  { additionalProperties: false },
)

export const ChangesQuery = Type.Object(
  { limit: Type.Optional(Limit(1000, 200)), next: Type.Optional(Continuation) },
  { additionalProperties: false },
)

export const RunChanges = Type.Object(
  {
    run_id: Type.String(),
    state: Type.Enum(['none', 'running', 'recorded'], {
      description:
        'none: no snapshot (the run made no call other than reads, snapshots are off, or its snapshots were pruned); running: its after snapshot is not recorded yet (the run has not ended, or has just); recorded: the run’s changes',
    }),
    files: Type.Integer({ minimum: 0, description: 'Files the run changed (all pages)' }),
    approximate: Type.Boolean({
      description: 'The run’s after snapshot was taken when the daemon started again, after a crash',
    }),
    items: Type.Array(FileChange),
    skipped: Type.Array(SkippedFile),
    next: Nullable(Continuation),
  },
  { additionalProperties: false },
)
export type RunChanges = Static<typeof RunChanges>

export const DiffQuery = Type.Object(
  { root: Type.Optional(AbsoluteRoot), path: RelativePath },
  { additionalProperties: false },
)

export const FileDiff = Type.Object(
  {
    root: Type.String(),
    path: Type.String(),
    binary: Type.Boolean(),
    truncated: Type.Boolean({ description: `The text was cut at ${MAX_DIFF_BYTES} bytes` }),
    text: Type.String({ description: 'A unified diff; empty for a binary file' }),
  },
  { additionalProperties: false },
)
export type FileDiff = Static<typeof FileDiff>

export const SessionChange = Type.Object(
  {
    run_id: Type.String(),
    files: Count,
    ended_at: Timestamp,
    restored_by: Nullable(Type.String({ description: 'The last restore that undid this run, if any' })),
  },
  { additionalProperties: false },
)
export const SessionChanges = Type.Object(
  { items: Type.Array(SessionChange), next: Nullable(Continuation) },
  { additionalProperties: false },
)
export type SessionChanges = Static<typeof SessionChanges>

export const RestoreFileRef = Type.Object(
  { root: Type.Optional(AbsoluteRoot), path: RelativePath },
  { additionalProperties: false },
)

export const RestoreRequest = Type.Object(
  {
    run_id: Type.Optional(UuidV7Of('The run to undo (default: the session’s last run that changed files)')),
    restore_id: Type.Optional(UuidV7Of('A restore to undo (a redo)')),
    files: Type.Optional(
      Type.Array(RestoreFileRef, {
        minItems: 1,
        maxItems: MAX_RESTORE_FILES,
        description: 'Only these files (default: every file the run or restore changed)',
      }),
    ),
    overwrite: Type.Optional(
      Type.Boolean({
        description: 'Restore files changed since the run too (default false: 409 restore_conflict)',
      }),
    ),
  },
  { additionalProperties: false },
)
export type RestoreRequest = Static<typeof RestoreRequest>

export const RestoredFile = Type.Object(
  {
    root: Type.String(),
    path: Type.String(),
    action: Type.Enum(['written', 'deleted', 'kept'], { description: 'kept: already as it was' }),
  },
  { additionalProperties: false },
)

export const Restore = Type.Object(
  {
    id: Type.String(),
    session_id: Type.String(),
    run_id: Nullable(Type.String({ description: 'The run undone (null for a redo)' })),
    undoes_restore_id: Nullable(Type.String({ description: 'The restore undone (a redo)' })),
    state: Type.Enum(['applying', 'applied', 'failed'], {
      description:
        'applying: its files are being written (a restart finishes it); failed: a file could not be written (error says why; the files of a root are checked before any is written)',
    }),
    error: Nullable(Type.String({ description: 'Why a failed restore failed' })),
    recovered: Type.Boolean({ description: 'Finished when the daemon started again after a crash' }),
    files: Type.Array(RestoredFile),
    snapshot_id: Type.String({ description: 'The snapshot taken before the restore: the redo point' }),
    created_at: Timestamp,
    ended_at: Nullable(Timestamp),
  },
  { additionalProperties: false },
)
export type Restore = Static<typeof Restore>

const notFound = ['session_not_found', 'session_deleted'] as const

export const snapshotsOps = defineOps({
  'snapshots.run_changes': {
    method: 'GET',
    path: '/sessions/{session_id}/runs/{run_id}/changes',
    summary: 'List the files a run changed',
    description:
      'The files that differ between the run’s before snapshot (taken just before its first call that is not a read) and its after snapshot (taken when it ended), paged. state none: the run took no snapshot (it only read, snapshots are off, or they were pruned). Files over tools.snapshots.max_file_bytes are listed in skipped.',
    tags: ['snapshots'],
    capability: CAP,
    params: RunParams,
    query: ChangesQuery,
    responses: { 200: { description: 'A page of the run’s changes', schema: RunChanges } },
    problems: [...notFound, 'run_not_found', 'invalid_continuation'],
  },
  'snapshots.run_diff': {
    method: 'GET',
    path: '/sessions/{session_id}/runs/{run_id}/changes/diff',
    summary: 'Read the diff of one file a run changed',
    description: `A unified diff between the run’s before and after snapshots, cut at ${MAX_DIFF_BYTES} bytes (truncated). A binary file is named, not dumped. root defaults to the session’s workspace.`,
    tags: ['snapshots'],
    capability: CAP,
    params: RunParams,
    query: DiffQuery,
    responses: { 200: { description: 'The file’s diff', schema: FileDiff } },
    problems: [...notFound, 'run_not_found', 'change_not_found'],
  },
  'snapshots.session_changes': {
    method: 'GET',
    path: '/sessions/{session_id}/changes',
    summary: 'List the session’s runs that changed files',
    description:
      'Newest first: each run that changed files, how many, when it ended and the last restore that undid it.',
    tags: ['snapshots'],
    capability: CAP,
    params: SessionParams,
    query: ChangesQuery,
    responses: { 200: { description: 'A page of runs', schema: SessionChanges } },
    problems: [...notFound, 'invalid_continuation'],
  },
  'snapshots.restore_put': {
    method: 'PUT',
    path: '/sessions/{session_id}/restores/{restore_id}',
    summary: 'Restore the files to how they were before a run (idempotent by id)',
    description:
      'Puts the files a run changed (or those listed) back to its before snapshot; with restore_id, undoes that restore (a redo). Neither: the session’s last run that changed files. The restore first takes a snapshot of its own (snapshot_id), so it can be undone. A file changed since the run (by the person, another session or a job) is a conflict: the whole restore is refused with 409 restore_conflict (its conflicts name them) and nothing is written, unless overwrite is true. The session must be idle (409 session_busy). A repeat with the same intent answers the same restore (200); another intent on the id is 409 restore_id_conflict.',
    tags: ['snapshots'],
    capability: CAP,
    params: RestoreParams,
    body: RestoreRequest,
    deferBodyCheck: true,
    responses: {
      200: { description: 'The existing restore', schema: Restore },
      201: { description: 'The restore, applied', schema: Restore, headers: ['Location'] },
    },
    problems: [
      ...notFound,
      'session_busy',
      'run_not_found',
      'restore_not_found',
      'restore_conflict',
      'restore_id_conflict',
      'restore_failed',
      'nothing_to_restore',
      'snapshots_disabled',
    ],
  },
  'snapshots.restore_get': {
    method: 'GET',
    path: '/sessions/{session_id}/restores/{restore_id}',
    summary: 'Read a restore',
    description:
      'Its state (applying while its files are written; a restart finishes it: recovered), the files it wrote, deleted or kept, and the snapshot it took first (the redo point).',
    tags: ['snapshots'],
    capability: CAP,
    params: RestoreParams,
    responses: { 200: { description: 'The restore', schema: Restore } },
    problems: [...notFound, 'restore_not_found'],
  },
})
