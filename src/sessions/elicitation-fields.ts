// A form's requested schema as fields a client can show (the session's blocking reason),
// and the check of an answer's content against it. The spec restricts a form to a flat
// object of primitives: strings (length, format), numbers and integers (range), booleans,
// and enums of one or several strings (with or without titles). A property of another
// shape is shown as a plain string field.
import type { ElicitProperty } from '../mcp/elicitation.ts'

export type FieldType = 'string' | 'number' | 'integer' | 'boolean' | 'array'
export type FieldFormat = 'email' | 'uri' | 'date' | 'date-time'
export type FieldValue = string | number | boolean | string[]

export interface ElicitationField {
  name: string
  title: string | null
  description: string | null
  /** `array`: several of `options`. A string with `options` is one of them. */
  type: FieldType
  required: boolean
  default: FieldValue | null
  format: FieldFormat | null
  min_length: number | null
  max_length: number | null
  minimum: number | null
  maximum: number | null
  min_items: number | null
  max_items: number | null
  options: { value: string; title: string }[] | null
}

export interface FieldError {
  field: string
  message: string
}

const FORMATS: readonly string[] = ['email', 'uri', 'date', 'date-time']
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null)
const str = (v: unknown) => (typeof v === 'string' ? v : null)

/** The choices of an enum property: `enum` (titled by `enumNames`), `oneOf`/`anyOf` of consts. */
function optionsOf(p: Record<string, unknown>): ElicitationField['options'] {
  const titled = (list: unknown) =>
    Array.isArray(list)
      ? list
          .filter((o) => typeof o?.const === 'string')
          .map((o) => ({ value: o.const as string, title: str(o.title) ?? (o.const as string) }))
      : null
  if (Array.isArray(p.enum)) {
    const names = Array.isArray(p.enumNames) ? p.enumNames : []
    return p.enum.map((v, i) => ({ value: String(v), title: str(names[i]) ?? String(v) }))
  }
  return titled(p.oneOf) ?? titled(p.anyOf)
}

function fieldOf(name: string, p: ElicitProperty, required: boolean): ElicitationField {
  const items = (p.items ?? {}) as Record<string, unknown>
  const type: FieldType =
    p.type === 'number' || p.type === 'integer' || p.type === 'boolean' || p.type === 'array'
      ? p.type
      : 'string'
  const d = p.default
  const fallback = typeof d === 'string' || typeof d === 'number' || typeof d === 'boolean' ? d : null
  return {
    name,
    title: str(p.title),
    description: str(p.description),
    type,
    required,
    default: Array.isArray(d) ? d.map(String) : fallback,
    format: FORMATS.includes(String(p.format)) ? (p.format as FieldFormat) : null,
    min_length: num(p.minLength),
    max_length: num(p.maxLength),
    minimum: num(p.minimum),
    maximum: num(p.maximum),
    min_items: num(p.minItems),
    max_items: num(p.maxItems),
    options: type === 'array' ? optionsOf(items) : optionsOf(p),
  }
}

export function fieldsOf(schema: {
  properties?: Record<string, ElicitProperty>
  required?: string[]
}): ElicitationField[] {
  const required = new Set(schema.required ?? [])
  return Object.entries(schema.properties ?? {}).map(([name, p]) => fieldOf(name, p, required.has(name)))
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const DATE = /^\d{4}-\d{2}-\d{2}$/
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/

function formatError(format: FieldFormat, v: string): string | null {
  const ok =
    format === 'email'
      ? EMAIL.test(v)
      : format === 'uri'
        ? URL.canParse(v)
        : format === 'date'
          ? DATE.test(v) && !Number.isNaN(Date.parse(v))
          : DATE_TIME.test(v) && !Number.isNaN(Date.parse(v))
  return ok ? null : `is not a valid ${format}`
}

function stringError(f: ElicitationField, v: unknown): string | null {
  if (typeof v !== 'string') return 'must be a string'
  if (f.options && !f.options.some((o) => o.value === v))
    return `must be one of ${f.options.map((o) => o.value).join(', ')}`
  if (f.min_length !== null && v.length < f.min_length) return `must be at least ${f.min_length} characters`
  if (f.max_length !== null && v.length > f.max_length) return `must be at most ${f.max_length} characters`
  return f.format ? formatError(f.format, v) : null
}

function numberError(f: ElicitationField, v: unknown): string | null {
  if (typeof v !== 'number' || !Number.isFinite(v))
    return `must be a${f.type === 'integer' ? 'n integer' : ' number'}`
  if (f.type === 'integer' && !Number.isInteger(v)) return 'must be an integer'
  if (f.minimum !== null && v < f.minimum) return `must be at least ${f.minimum}`
  if (f.maximum !== null && v > f.maximum) return `must be at most ${f.maximum}`
  return null
}

function arrayError(f: ElicitationField, v: unknown): string | null {
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) return 'must be a list of strings'
  const allowed = f.options?.map((o) => o.value)
  const stray = allowed ? v.find((x) => !allowed.includes(x)) : undefined
  if (stray !== undefined) return `has ${stray}, which is not one of ${allowed?.join(', ')}`
  const choices = (n: number) => `${n} choice${n === 1 ? '' : 's'}`
  if (f.min_items !== null && v.length < f.min_items) return `needs at least ${choices(f.min_items)}`
  if (f.max_items !== null && v.length > f.max_items) return `takes at most ${choices(f.max_items)}`
  return null
}

function valueError(f: ElicitationField, v: unknown): string | null {
  if (f.type === 'boolean') return typeof v === 'boolean' ? null : 'must be true or false'
  if (f.type === 'number' || f.type === 'integer') return numberError(f, v)
  if (f.type === 'array') return arrayError(f, v)
  return stringError(f, v)
}

/** What is wrong with an accepted form's content, field by field (empty: it fits). */
export function contentErrors(fields: ElicitationField[], content: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = []
  const known = new Map(fields.map((f) => [f.name, f]))
  for (const name of Object.keys(content))
    if (!known.has(name)) errors.push({ field: name, message: 'is not a field of this form' })
  for (const f of fields) {
    const v = content[f.name]
    if (v === undefined) {
      if (f.required) errors.push({ field: f.name, message: 'is required' })
      continue
    }
    const message = valueError(f, v)
    if (message) errors.push({ field: f.name, message })
  }
  return errors
}
