// Operations of groups `inputs` and `history`.
import { EmptyRequest, INPUT_BODY_LIMIT } from './common.ts'
import {
  ActiveOutputParams,
  ActiveOutputQuery,
  EntryContentPage,
  EntryFieldParams,
  EntryParams,
  HistoryQuery,
  HistoryRead,
  ImageBytes,
  NextQuery,
} from './history.ts'
import {
  Input,
  InputCancellation,
  InputParams,
  InputRequest,
  Interruption,
  InterruptRequest,
} from './inputs.ts'
import { defineOps } from './op.ts'
import { SessionParams } from './sessions.ts'

export const inputsOps = defineOps({
  'inputs.put': {
    method: 'PUT',
    path: '/sessions/{session_id}/inputs/{input_id}',
    summary: 'Submit a message or an approval (durable, idempotent by input id)',
    description:
      'The input id is a client-generated UUIDv7. An input of kind `approval` decides a waiting approval request (status.blocking_reason) at once, in the admission commit: it is never queued and does not count toward the 32; one for an unknown request, one of another session or one no longer pending is 409 approval_not_pending and nothing is stored. A known id is looked up before anything else is validated: the same request returns the original decision (202, or 429 for a rejection) with the current delivery; a different request is 409 input_conflict. A new input is committed to disk before the 202. A session with 32 waiting inputs rejects with 429 queue_full and Retry-After; the rejection is kept as the decision. An unknown id older than seven days is 410.',
    tags: ['inputs'],
    params: InputParams,
    body: InputRequest,
    bodyLimit: INPUT_BODY_LIMIT,
    deferBodyCheck: true,
    responses: { 202: { description: 'Accepted (or the decision of a repeat)', schema: Input } },
    problems: [
      'session_not_found',
      'session_deleted',
      'input_conflict',
      'approval_not_pending',
      'input_expired',
      'queue_full',
      'empty_message',
      'text_too_large',
      'invalid_image',
      'family_deleting',
    ],
  },
  'inputs.get': {
    method: 'GET',
    path: '/sessions/{session_id}/inputs/{input_id}',
    summary: 'Read an input’s decision and delivery',
    description: 'Readable after its session is deleted; terminal decisions are kept seven days.',
    tags: ['inputs'],
    params: InputParams,
    responses: { 200: { description: 'The input', schema: Input } },
    problems: ['session_not_found', 'session_deleted', 'input_not_found', 'input_expired'],
  },
  'inputs.cancel': {
    method: 'POST',
    path: '/sessions/{session_id}/inputs/{input_id}/cancel',
    summary: 'Cancel an input',
    description:
      'A waiting input is cancelled. A running input whose turn serves it alone stops that turn (outcome interrupted); one sharing its turn with others leaves the turn running (shared_running). A later unrelated turn is never touched.',
    tags: ['inputs'],
    params: InputParams,
    body: EmptyRequest,
    responses: { 200: { description: 'What the cancel did', schema: InputCancellation } },
    problems: ['session_not_found', 'session_deleted', 'input_not_found', 'input_expired'],
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
  'history.list': {
    method: 'GET',
    path: '/sessions/{session_id}/history',
    summary: 'Read the history in ascending pages',
    description:
      'view entries (default) or checkpoints (one item per display group). Without a position: the newest page. before, after and next are exclusive. Pages keep display groups whole, so a page may exceed limit by the rest of a group.',
    tags: ['history'],
    params: SessionParams,
    query: HistoryQuery,
    responses: { 200: { description: 'A page', schema: HistoryRead } },
    problems: ['session_not_found', 'session_deleted', 'invalid_history_range', 'invalid_continuation'],
  },
  'history.entry': {
    method: 'GET',
    path: '/sessions/{session_id}/history/{entry_id}',
    summary: 'Read an entry’s whole text in pieces',
    description: 'Follow next until it is null. Pieces are UTF-8 text that ends on character boundaries.',
    tags: ['history'],
    params: EntryParams,
    query: NextQuery,
    responses: { 200: { description: 'A piece', schema: EntryContentPage } },
    problems: ['session_not_found', 'session_deleted', 'entry_not_found', 'invalid_continuation'],
  },
  'history.image': {
    method: 'GET',
    path: '/sessions/{session_id}/history/{entry_id}/{field}',
    summary: 'Read an image of an entry as raw bytes',
    description: 'The body is the image itself (never base64, never content-coded), typed by its media type.',
    tags: ['history'],
    params: EntryFieldParams,
    responses: {
      200: { description: 'The image bytes', mediaType: 'image/*', schema: ImageBytes },
    },
    problems: ['session_not_found', 'session_deleted', 'entry_not_found', 'field_not_found'],
  },
  'sessions.active_output': {
    method: 'GET',
    path: '/sessions/{session_id}/active-output/{content_id}',
    summary: 'Read the output of a running turn up to a snapshot',
    description:
      'snapshot comes from the session’s active_output item and fixes the byte cutoff. Pages hold at most 262,144 UTF-8 bytes; keep the snapshot when following next. Once the run ends the snapshot is 410 snapshot_stale: read the entry from the history.',
    tags: ['history'],
    params: ActiveOutputParams,
    query: ActiveOutputQuery,
    responses: { 200: { description: 'A piece', schema: EntryContentPage } },
    problems: ['session_not_found', 'session_deleted', 'snapshot_stale', 'invalid_continuation'],
  },
})
