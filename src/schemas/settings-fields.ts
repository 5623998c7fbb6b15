// Building blocks the settings groups' schemas share: maps keyed by a name pattern, merge-patch
// members (absent keeps, null removes, a value sets), bounded text, URLs, and write-only
// secrets (a read shows `{saved: true}`, a patch sets a string or removes with null).
import type { TSchema } from 'typebox'
import * as Type from 'typebox'
import { Nullable } from './common.ts'

/** A map keyed by names matching `pattern` (JSON Schema propertyNames). */
export const MapOf = <V extends TSchema>(pattern: string, value: V, options: Record<string, unknown> = {}) =>
  Type.Record(Type.String(), value, { propertyNames: { pattern }, ...options })
/** A merge-patch member: absent keeps, null removes (back to the default), a value sets. */
export const Removable = <V extends TSchema>(schema: V) => Type.Optional(Nullable(schema))
export const Text = (max: number, description?: string) =>
  Type.String({ minLength: 1, maxLength: max, ...(description ? { description } : {}) })
export const Url = Type.String({
  format: 'uri',
  pattern: '^https?://',
  maxLength: 4096,
  examples: ['https://api.openai.com/v1'],
})
export const Saved = Type.Object(
  { saved: Type.Literal(true) },
  { additionalProperties: false, description: 'A secret is saved in creds.json; its value is never shown' },
)
/** A write-only secret in a patch: a string sets it, null removes it. */
export const SecretPatch = (max: number) => Nullable(Type.String({ minLength: 1, maxLength: max }))
export const HeaderName = "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$"
export const EnvName = '^[A-Za-z_][A-Za-z0-9_]{0,127}$'
