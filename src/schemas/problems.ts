// The one registry of problem codes. A code is part of the wire contract: clients branch
// on it, so a code is never renamed or reused for a different meaning. Add a new code when
// a client would act differently.
import type { Static } from 'typebox'
import * as Type from 'typebox'

export const PROBLEMS = {
  // Request shape
  malformed_json: { status: 400, title: 'The request body is not valid JSON' },
  duplicate_key: { status: 400, title: 'The request body repeats a JSON key' },
  unknown_field: { status: 400, title: 'The request body has a field this operation does not accept' },
  invalid_request: { status: 400, title: 'The request body does not match the operation schema' },
  unexpected_body: { status: 400, title: 'This operation takes no request body' },
  unknown_parameter: { status: 400, title: 'The query has a parameter this operation does not accept' },
  duplicate_parameter: { status: 400, title: 'The query repeats a parameter' },
  invalid_parameter: { status: 400, title: 'A query or path parameter is not valid' },
  invalid_id: { status: 400, title: 'The identifier is not a valid UUIDv7' },
  invalid_continuation: { status: 400, title: 'The continuation token is not valid for this query' },
  invalid_header: { status: 400, title: 'A request header is not valid' },
  zstd_invalid: { status: 400, title: 'The zstd request body is corrupt' },
  zstd_size_undeclared: { status: 400, title: 'The zstd frame does not declare its decoded size' },
  zstd_window_too_large: { status: 400, title: 'The zstd frame needs a window larger than allowed' },
  body_incomplete: { status: 400, title: 'The connection ended before the request body did' },
  malformed_request: { status: 400, title: 'The request is not valid HTTP/1.1 (framing or header bytes)' },
  request_timeout: {
    status: 408,
    title: 'The request headers or body stopped arriving before they were complete',
  },
  headers_too_large: { status: 431, title: 'The request headers are larger than the daemon accepts' },
  // Access
  unauthorized: { status: 401, title: 'A valid bearer token is required' },
  host_not_allowed: { status: 403, title: 'The Host header is not a loopback name with this daemon port' },
  origin_not_allowed: { status: 403, title: 'Requests from a non-loopback Origin are refused' },
  // Routing and negotiation
  not_found: { status: 404, title: 'No such resource' },
  method_not_allowed: { status: 405, title: 'The resource does not support this method' },
  not_acceptable: { status: 406, title: 'None of the accepted media types can be produced' },
  unsupported_media_type: { status: 415, title: 'The request content type is not supported here' },
  unsupported_content_encoding: { status: 415, title: 'The request content encoding is not supported' },
  body_too_large: { status: 413, title: 'The request body is larger than this operation allows' },
  // Sessions
  session_not_found: { status: 404, title: 'No session has this id' },
  family_not_found: { status: 404, title: 'No session family has this id' },
  session_deleted: { status: 410, title: 'The session was deleted' },
  workspace_not_absolute: { status: 400, title: 'The workspace must be an absolute path' },
  workspace_not_found: { status: 400, title: 'The workspace directory does not exist on the daemon host' },
  workspace_not_directory: { status: 400, title: 'The workspace path is not a directory' },
  catalog_changed: {
    status: 409,
    title: 'The catalog sections a selection was made from have changed since; read the catalog again',
  },
  extension_not_selected: {
    status: 409,
    title: "The session's selection turns off the extension its provider profile needs",
  },
  selection_too_large: {
    status: 400,
    title: 'A selection would hold more than 4096 entries in a map, or more than 64 KiB in all',
  },
  read_only_field: { status: 400, title: 'The request changes a read-only field' },
  invalid_host: {
    status: 400,
    title: 'The host is not an alias or host name (letters, digits, dot, dash, underscore; no leading dash)',
  },
  // Workspace browsing
  location_not_found: { status: 404, title: 'The location does not exist on the daemon host' },
  location_not_directory: { status: 409, title: 'The location is not a directory' },
  location_unreadable: { status: 409, title: 'The location cannot be read by the daemon' },
  // Work items (extension `work`)
  work_item_not_found: { status: 404, title: 'No work item has this id in this workspace' },
  work_parent_not_found: { status: 404, title: 'The parent is not a work item of this workspace' },
  work_parent_cycle: { status: 409, title: 'The parent is the item itself or an item below it' },
  work_item_has_children: { status: 409, title: 'The work item has children; delete or move them first' },
  work_items_full: { status: 409, title: 'The workspace holds the most work items it may (10,000)' },
  paperclip_not_found: { status: 404, title: 'No clip has this id' },
  paperclips_full: { status: 409, title: 'The most clips hearth keeps (10,000) are kept; delete some first' },
  work_run_without_session: { status: 400, title: 'A run_id needs the session_id of that run' },
  workspace_change_not_standalone: {
    status: 400,
    title: 'A workspace move must be the only change in its request',
  },
  family_revision_required: { status: 400, title: 'A workspace move must carry family_revision' },
  invalid_scope: { status: 400, title: 'The scope conflicts with the other listing parameters' },
  invalid_stream_position: { status: 400, title: 'after_generation and after_seq must be given together' },
  source_unavailable: { status: 409, title: 'The fork source does not exist' },
  entry_out_of_range: { status: 409, title: 'The fork entry is past the end of the source history' },
  parent_unavailable: { status: 409, title: 'The parent session does not exist' },
  family_deleting: { status: 409, title: 'A subtree deletion runs in this family' },
  session_busy: { status: 409, title: 'The session is not idle' },
  session_has_children: { status: 409, title: 'The session has children; delete with scope=subtree' },
  // Inputs, runs and history
  input_conflict: { status: 409, title: 'This input id was admitted with a different request' },
  queue_full: { status: 429, title: 'The session already has 32 waiting inputs' },
  family_full: {
    status: 429,
    title: 'The family already has 1024 sessions; delete some before adding children',
  },
  input_not_found: { status: 404, title: 'No input has this id in this session' },
  approval_not_pending: {
    status: 409,
    title: 'No approval request of this session waits under this id (unknown, or already decided or expired)',
  },
  elicitation_not_pending: {
    status: 409,
    title:
      'No elicitation request of this session waits under this id (unknown, or already answered or expired)',
  },
  elicitation_content_invalid: {
    status: 422,
    title: 'The answer does not fit the form the server asked for (errors lists each field)',
  },
  input_expired: {
    status: 410,
    title: 'The input id is older than the seven days decisions are kept; it is never admitted afresh',
  },
  empty_message: { status: 400, title: 'A message needs text or at least one image' },
  text_too_large: { status: 400, title: 'The message text is larger than 1 MiB of UTF-8' },
  invalid_image: { status: 400, title: 'An image is not valid base64 of the declared media type' },
  entry_not_found: { status: 404, title: 'No history entry has this id in this session' },
  field_not_found: { status: 404, title: 'The history entry has no image field of this name' },
  snapshot_stale: {
    status: 410,
    title: 'The active output this snapshot names has ended; read it from the history',
  },
  invalid_history_range: { status: 400, title: 'Use only one of before, after and next' },
  // Snapshots and restores
  run_not_found: { status: 404, title: 'This session has no run with this id' },
  change_not_found: { status: 404, title: 'The run did not change a file at this root and path' },
  restore_not_found: { status: 404, title: 'This session has no restore with this id' },
  restore_conflict: {
    status: 409,
    title:
      'Files changed since the run; nothing was restored (conflicts names them; overwrite restores them anyway)',
  },
  restore_id_conflict: { status: 409, title: 'This restore id was used for a different request' },
  restore_failed: {
    status: 409,
    title: 'A file could not be restored (a directory on its way leaves its root, or it cannot be written)',
  },
  nothing_to_restore: { status: 422, title: 'The run or restore changed no file (or none of those named)' },
  snapshots_disabled: { status: 409, title: 'Snapshots are off (settings tools.snapshots.enabled)' },
  // Context and compaction
  invalid_context_query: {
    status: 400,
    title: 'The context query combines parameters that do not go together for its view',
  },
  context_changed: {
    status: 410,
    title: 'The context changed since this snapshot; read the summary again for a new snapshot_id',
  },
  section_not_found: { status: 404, title: 'The context snapshot has no such section or page' },
  compaction_failed: { status: 502, title: 'The compaction did not complete; the history is unchanged' },
  catalogue_refresh_failed: {
    status: 502,
    title: 'The model catalogue could not be downloaded or is not a catalogue; the cached one is unchanged',
  },
  composition_load_failed: {
    status: 503,
    title: "The session's composition could not be loaded; the loaded one is unchanged",
  },
  kernel_upgrade_failed: {
    status: 503,
    title: 'A new kernel could not be staged, validated or swapped in; the session keeps its kernel',
  },
  // Run failures (carried by run.ended events, never an HTTP status of their own)
  provider_not_configured: {
    status: 409,
    title: 'The session names a provider profile that is not configured',
  },
  upstream_unauthorized: { status: 502, title: 'The provider refused the credentials' },
  upstream_rate_limited: { status: 502, title: 'The provider kept answering 429 (rate limited)' },
  upstream_unavailable: { status: 502, title: 'The provider could not be reached or kept failing' },
  upstream_timeout: { status: 504, title: 'The provider stopped sending before the answer was complete' },
  upstream_dropped: { status: 502, title: 'The provider connection ended mid-answer' },
  upstream_malformed: { status: 502, title: 'The provider sent a frame that does not parse' },
  upstream_rejected: { status: 502, title: 'The provider rejected the request' },
  upstream_incomplete: { status: 502, title: 'The provider stream ended without a final event' },
  upstream_blocked: {
    status: 502,
    title: "The provider's safety or policy filters blocked the prompt or the answer",
  },
  upstream_tool_call_invalid: {
    status: 502,
    title:
      'The model made a tool call the provider could not accept (malformed or not offered); no call was run',
  },
  upstream_stopped: { status: 502, title: 'The provider ended the answer early for a reason of its own' },
  credentials_not_found: {
    status: 401,
    title: 'No local credentials for the provider were found; nothing was sent to it',
  },
  credentials_unusable: {
    status: 401,
    title: 'The local credentials for the provider cannot be used; nothing was sent to it',
  },
  effort_unsupported: {
    status: 400,
    title: 'The model does not take the reasoning effort asked for; nothing was sent to the provider',
  },
  kernel_crashed: { status: 500, title: 'The session kernel process exited during the run' },
  daemon_restarted: { status: 503, title: 'The daemon stopped during the run' },
  step_limit_reached: {
    status: 409,
    title: 'The run made as many model requests as tools.max_steps allows; send a message to go on',
  },
  signed_out: { status: 401, title: 'No account is signed in for this provider; run /login' },
  no_usable_account: { status: 401, title: 'No signed-in account of this provider can be used; run /login' },
  // Settings
  invalid_settings: { status: 400, title: 'The settings group would not be valid after this change' },
  extension_dependency: {
    status: 409,
    title: 'The change would leave an enabled extension without an extension it requires',
  },
  extension_in_use: { status: 409, title: 'A saved profile uses the extension this change disables' },
  provider_unsupported: {
    status: 400,
    title: 'hearth has no transport for this provider extension yet; a profile of it cannot be used',
  },
  settings_unreadable: { status: 503, title: 'A settings file is not valid JSON; fix or remove it' },
  // Models
  invalid_model_query: { status: 400, title: 'The model query combines parameters that do not go together' },
  profile_not_found: { status: 404, title: 'No provider profile has this name' },
  provider_not_found: { status: 404, title: 'No extension or catalogue provider has this name' },
  // Sign-in and accounts
  login_not_found: { status: 404, title: 'No login has this id' },
  login_expired: {
    status: 410,
    title: 'The login ended more than fifteen minutes ago, or its id is that old',
  },
  login_conflict: { status: 409, title: 'This login id was used for a different request' },
  too_many_logins: { status: 429, title: 'Eight logins are already unfinished' },
  login_not_waiting: { status: 409, title: 'The login is no longer waiting for a response' },
  state_mismatch: {
    status: 400,
    title: 'The response belongs to another sign-in (its state does not match)',
  },
  invalid_login_response: { status: 400, title: 'The response holds no authorization code' },
  unknown_provider: { status: 400, title: 'No sign-in is offered for this provider' },
  flow_not_offered: {
    status: 422,
    title: "The provider does not sign in with this flow; GET /auth lists each provider's flows",
  },
  extension_disabled: { status: 409, title: 'The extension is turned off in settings' },
  account_not_found: { status: 404, title: 'No saved account has this id' },
  account_in_use: { status: 409, title: 'A saved profile is bound to this account' },
  // State
  instance_mismatch: { status: 409, title: 'The request names a different daemon instance' },
  precondition_failed: { status: 412, title: 'The resource changed since the validator was read' },
  precondition_required: { status: 428, title: 'This operation needs a conditional header' },
  daemon_draining: { status: 503, title: 'The daemon is shutting down and admits no new requests' },
  decode_busy: {
    status: 503,
    title: 'Other coded request bodies are being decoded; retry after Retry-After seconds',
  },
  insufficient_storage: {
    status: 507,
    title: "The home's file system is full: nothing was written; retry once there is space",
  },
  internal: { status: 500, title: 'Internal error' },
} as const satisfies Record<string, { status: number; title: string }>

export type ProblemCode = keyof typeof PROBLEMS

/**
 * Codes no operation answers: they describe why a run (or a compaction) failed and travel in
 * the problem of a `run.ended` event, of the history's `error` entry or of a compaction
 * result. Their status is informative.
 */
export const RUN_FAILURE_CODES: ReadonlySet<ProblemCode> = new Set<ProblemCode>([
  'provider_not_configured',
  'extension_not_selected',
  'signed_out',
  'no_usable_account',
  'upstream_unauthorized',
  'upstream_rate_limited',
  'upstream_unavailable',
  'upstream_timeout',
  'upstream_dropped',
  'upstream_malformed',
  'upstream_rejected',
  'upstream_incomplete',
  'upstream_blocked',
  'upstream_tool_call_invalid',
  'upstream_stopped',
  'credentials_not_found',
  'credentials_unusable',
  'effort_unsupported',
  'kernel_crashed',
  'daemon_restarted',
  'step_limit_reached',
  'compaction_failed',
])

/** Why one target of a reload failed: in that target's `problem`, never an HTTP answer. */
export const RELOAD_FAILURE_CODES: ReadonlySet<ProblemCode> = new Set<ProblemCode>([
  'catalogue_refresh_failed',
  'composition_load_failed',
])

/** Why a kernel upgrade failed: in the upgrade's `problem`, never an HTTP answer. */
export const UPGRADE_FAILURE_CODES: ReadonlySet<ProblemCode> = new Set<ProblemCode>(['kernel_upgrade_failed'])

/** Thrown by any layer; rendered once as problem+json by the HTTP layer. */
export class HearthError extends Error {
  readonly code: ProblemCode
  readonly status: number
  readonly headers: Record<string, string>
  /** Members the problem body carries besides the standard ones (e.g. a restore's `conflicts`). */
  readonly members: Record<string, unknown>
  constructor(
    code: ProblemCode,
    detail?: string,
    headers: Record<string, string> = {},
    members: Record<string, unknown> = {},
  ) {
    super(detail ?? PROBLEMS[code].title)
    this.name = 'HearthError'
    this.code = code
    this.status = PROBLEMS[code].status
    this.headers = headers
    this.members = members
  }
}

export const PROBLEM_TYPE_BASE = 'https://hearth.dev/problems/'

export const Problem = Type.Object(
  {
    type: Type.String({ description: `A URI under ${PROBLEM_TYPE_BASE}<code>` }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({ description: 'Stable machine-readable code; see docs/problems.md' }),
  },
  { additionalProperties: true, $id: 'Problem' },
)
export type Problem = Static<typeof Problem>

export function problemBody(code: ProblemCode, detail?: string): Problem {
  const p = PROBLEMS[code]
  return { type: PROBLEM_TYPE_BASE + code, title: p.title, status: p.status, detail: detail ?? p.title, code }
}
