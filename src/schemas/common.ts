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

/** Bodies of operations that take no input: an empty JSON object. */
export const EmptyRequest = Type.Object({}, { additionalProperties: false, $id: 'EmptyRequest' })

export const KiB = 1024
export const DEFAULT_BODY_LIMIT = 64 * KiB
export const INPUT_BODY_LIMIT = 72_200_000

/** A schema that also admits null. */
export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) =>
  Type.Union([t, Type.Null()])
