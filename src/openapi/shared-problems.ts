// Problem codes an operation can answer by construction of the HTTP core (app.ts, body.ts,
// validate.ts). Listed once so OpenAPI documents them on every operation and the contract
// test can check the registry.
import type { TSchema } from 'typebox'
import type { OpSpec } from '../schemas/op.ts'
import type { ProblemCode } from '../schemas/problems.ts'

/** What any operation can answer, whatever its shape. */
export const SHARED_PROBLEMS: readonly ProblemCode[] = [
  'invalid_parameter',
  'unknown_parameter',
  'duplicate_parameter',
  'invalid_header',
  'zstd_invalid',
  'zstd_size_undeclared',
  'zstd_window_too_large',
  'decode_busy',
  'unauthorized',
  'host_not_allowed',
  'origin_not_allowed',
  'not_found',
  'method_not_allowed',
  'not_acceptable',
  'body_too_large',
  'body_incomplete',
  'malformed_request',
  'request_timeout',
  'headers_too_large',
  'unsupported_content_encoding',
  'daemon_draining',
  'insufficient_storage',
  'internal',
]

/** Operations that take a body: its media type, JSON syntax and schema are checked. */
const BODY_PROBLEMS: readonly ProblemCode[] = [
  'unsupported_media_type',
  'malformed_json',
  'duplicate_key',
  'unknown_field',
  'invalid_request',
]

/** Operations without a body refuse one. */
const NO_BODY_PROBLEMS: readonly ProblemCode[] = ['unexpected_body']

/** A path parameter's schema may name the code its validation failure answers (x-problem). */
function paramProblems(op: OpSpec): ProblemCode[] {
  if (!op.params) return []
  return Object.values(op.params.properties)
    .map((s) => (s as TSchema & { 'x-problem'?: ProblemCode })['x-problem'])
    .filter((code): code is ProblemCode => code !== undefined)
}

export function problemsOf(op: OpSpec): ProblemCode[] {
  const precond: ProblemCode[] =
    op.ifMatch || op.ifNoneMatch ? ['precondition_required', 'precondition_failed'] : []
  return [
    ...new Set([
      ...SHARED_PROBLEMS,
      ...(op.body ? BODY_PROBLEMS : NO_BODY_PROBLEMS),
      ...(op.body && op.readOnly?.length ? (['read_only_field'] as const) : []),
      ...paramProblems(op),
      ...precond,
      ...op.problems,
    ]),
  ]
}
