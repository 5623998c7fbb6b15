// Group `storage`: what the daemon keeps on disk, measured when asked.
import type { Static } from 'typebox'
import * as Type from 'typebox'
import { Continuation, Limit, Timestamp } from './common.ts'
import { defineOps } from './op.ts'

const Bytes = Type.Integer({ minimum: 0 })

export const StorageSessionItem = Type.Object(
  {
    session_id: Type.String(),
    event_count: Bytes,
    estimated_content_bytes: Type.Integer({
      minimum: 0,
      description: 'Bytes of the session rows and its event log',
    }),
  },
  { additionalProperties: false },
)

export const StorageFileItem = Type.Object(
  {
    path: Type.String({ description: 'Path relative to the home, "/"-separated' }),
    kind: Type.Enum([
      'database',
      'config',
      'credentials',
      'token',
      'runtime',
      'log',
      'backup',
      'kernel',
      'snapshot',
      'other',
    ]),
    bytes: Bytes,
    modified_at: Timestamp,
  },
  { additionalProperties: false },
)

export const StorageReport = Type.Object(
  {
    database: Type.Object(
      {
        main_file_bytes: Bytes,
        wal_bytes: Bytes,
        page_size_bytes: Bytes,
        page_count: Bytes,
        free_page_count: Bytes,
        used_bytes: Bytes,
      },
      { additionalProperties: false },
    ),
    sessions: Type.Object(
      {
        items: Type.Array(StorageSessionItem),
        next: Type.Union([Continuation, Type.Null()]),
        total_count: Bytes,
        total_estimated_content_bytes: Bytes,
      },
      { additionalProperties: false },
    ),
    images: Type.Object({ count: Bytes, bytes: Bytes }, { additionalProperties: false }),
    snapshots: Type.Object(
      {
        count: Type.Integer({
          minimum: 0,
          description: 'Workspace snapshots recorded (docs/checkpoints.md)',
        }),
        bytes: Type.Integer({ minimum: 0, description: 'Bytes of HOME/snapshots' }),
      },
      { additionalProperties: false },
    ),
    quota_readings: Type.Object(
      { count: Type.Integer({ minimum: 0, description: 'Stored quota readings (docs/quota.md)' }) },
      { additionalProperties: false },
    ),
    files: Type.Object(
      { items: Type.Array(StorageFileItem), next: Type.Union([Continuation, Type.Null()]) },
      { additionalProperties: false },
    ),
    totals: Type.Object(
      {
        kernel_bytes: Bytes,
        backup_bytes: Bytes,
        snapshot_bytes: Type.Integer({ minimum: 0, description: 'Workspace snapshots (HOME/snapshots)' }),
        other_bytes: Bytes,
        recent_backup_bytes: Type.Integer({ minimum: 0, description: 'Backups made in the last 7 days' }),
        recent_backup_count: Bytes,
      },
      { additionalProperties: false },
    ),
    measured_at: Timestamp,
  },
  { additionalProperties: false, $id: 'StorageReport' },
)
export type StorageReport = Static<typeof StorageReport>

export const StorageQuery = Type.Object(
  {
    sessions_next: Type.Optional(Continuation),
    files_next: Type.Optional(Continuation),
    limit: Type.Optional(Limit(200, 50)),
  },
  { additionalProperties: false },
)

export const storageOps = defineOps({
  'storage.get': {
    method: 'GET',
    path: '/storage',
    summary: 'Measure storage',
    description:
      'Each paged section (sessions, files) has its own continuation; totals always cover all storage. Paths never authorize local mutation.',
    tags: ['storage'],
    capability: 'storage_report',
    query: StorageQuery,
    responses: { 200: { description: 'The storage report', schema: StorageReport, headers: ['Vary'] } },
    problems: ['invalid_continuation'],
  },
})
