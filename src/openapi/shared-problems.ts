// Problem codes any operation can answer, by construction of the HTTP core. Listed once so
// OpenAPI documents them on every operation and the contract test can check the registry.
import type { OpSpec } from '../schemas/op.ts'
import type { ProblemCode } from '../schemas/problems.ts'

export const SHARED_PROBLEMS: readonly ProblemCode[] = [
  'invalid_parameter',
  'unknown_parameter',
  'duplicate_parameter',
  'invalid_header',
  'unexpected_body',
  'zstd_invalid',
  'zstd_size_undeclared',
  'zstd_window_too_large',
  'unauthorized',
  'host_not_allowed',
  'origin_not_allowed',
  'not_found',
  'method_not_allowed',
  'not_acceptable',
  'body_too_large',
  'unsupported_media_type',
  'unsupported_content_encoding',
  'daemon_draining',
  'internal',
]

const BODY_PROBLEMS: readonly ProblemCode[] = [
  'malformed_json',
  'duplicate_key',
  'unknown_field',
  'invalid_request',
]

export function problemsOf(op: OpSpec): ProblemCode[] {
  const params: ProblemCode[] = op.params ? ['invalid_id'] : []
  const precond: ProblemCode[] =
    op.ifMatch || op.ifNoneMatch ? ['precondition_required', 'precondition_failed'] : []
  return [
    ...new Set([
      ...SHARED_PROBLEMS,
      ...(op.body ? BODY_PROBLEMS : []),
      ...params,
      ...precond,
      ...op.problems,
    ]),
  ]
}
