// Scalar and shared shapes used by several groups.
import * as Type from 'typebox'

/** RFC 9562 UUID version 7, lower or upper case hex. */
export const UUIDV7_PATTERN =
  '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-7[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$'

export const UuidV7 = Type.String({
  pattern: UUIDV7_PATTERN,
  description: 'A client-generated UUIDv7',
  'x-problem': 'invalid_id',
})

/** A UUIDv7 naming a resource, described for its place (a bad one is 400 invalid_id). */
export const UuidV7Of = (description: string) =>
  Type.String({ pattern: UUIDV7_PATTERN, description, 'x-problem': 'invalid_id' })

export const Timestamp = Type.String({
  format: 'date-time',
  description: 'RFC 3339 UTC timestamp with milliseconds',
})

/** An opaque continuation token: base64url, signed, bound to the query that minted it. */
export const Continuation = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'Opaque continuation token',
})

export const Limit = (max: number, dflt: number) =>
  Type.Integer({
    minimum: 1,
    maximum: max,
    default: dflt,
    description: `Page size, 1 to ${max}, default ${dflt}`,
  })

/** The path of every operation on one session. */
export const SessionParams = Type.Object({ session_id: UuidV7 }, { additionalProperties: false })

/** Bodies of operations that take no input: an empty JSON object. */
export const EmptyRequest = Type.Object({}, { additionalProperties: false, $id: 'EmptyRequest' })

export const KiB = 1024
export const DEFAULT_BODY_LIMIT = 64 * KiB
export const INPUT_BODY_LIMIT = 72_200_000

/** A schema that also admits null. */
export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) =>
  Type.Union([t, Type.Null()])

// ---- Names and values more than one group takes ----------------------------------------

/** A directory on the daemon host, described for its place (relative paths are refused later). */
export const WorkspacePathOf = (description: string) =>
  Type.String({ minLength: 1, maxLength: 4096, description })

/** A session's workspace: sessions, work items and their queries take the same path. */
export const WorkspacePath = WorkspacePathOf('Absolute directory path on the daemon host')

/** A session's own name (free text; empty means the automatic name). */
export const SessionName = Type.String({ minLength: 1, maxLength: 256 })

/** A name settings key a map by: a provider profile or an MCP server. */
export const NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'

/**
 * A provider profile's name, wherever it is given: settings save profiles under it, sessions
 * and model queries name one with it. A bad one is refused where it is sent, not at a run.
 */
export const ProfileName = Type.String({
  pattern: NAME_PATTERN,
  description: '1–64 of A-Z a-z 0-9 . _ -',
  examples: ['work'],
})

/** A model id as a session or a profile names it. */
export const ModelId = Type.String({ minLength: 1, maxLength: 512 })

export const EFFORTS = ['minimal', 'low', 'medium', 'high', 'xhigh'] as const
export type EffortName = (typeof EFFORTS)[number]

/** A reasoning effort, in a profile or a session (null: the provider's default). */
export const Effort = Type.Enum([...EFFORTS], { description: 'Reasoning effort' })

export const APPROVAL_POLICIES = ['read-only', 'ask', 'auto'] as const
export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number]

/** Which tool calls run without asking, in settings or for one session. */
export const ApprovalPolicyOf = (description: string) => Type.Enum([...APPROVAL_POLICIES], { description })
