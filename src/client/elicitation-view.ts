// What an MCP server asks the person, worded for a person, and the person's typed values
// read back as the form's content: the terminal client's question screen
// (src/tui/elicitation-screen.ts) and `hearth send`'s prompt (src/cli/elicitations.ts) both
// use these. A value is typed as text: a number as digits, a yes/no as y or n, a choice as
// its value, its title or its number in the list, several choices separated by commas. The
// daemon checks the content again (422 with each field's error).
import type { Static } from 'typebox'
import type { ElicitationBlockingReason, ElicitationField } from '../schemas/elicitation.ts'

export type Field = Static<typeof ElicitationField>
export type Question = Static<typeof ElicitationBlockingReason>
export type FieldValue = string | number | boolean | string[]
export type Answer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, FieldValue> }

const KIND: Record<Field['type'], string> = {
  string: 'text',
  number: 'number',
  integer: 'whole number',
  boolean: 'y/n',
  array: 'choices, comma-separated',
}

/** `Your name (text, 2–40 characters, required)`. */
export function fieldLabel(f: Field): string {
  const notes = [f.options && f.type === 'string' ? 'one of the choices' : KIND[f.type]]
  if (f.format) notes.push(f.format)
  if (f.min_length !== null || f.max_length !== null)
    notes.push(`${f.min_length ?? 0}–${f.max_length ?? '…'} characters`)
  if (f.minimum !== null || f.maximum !== null) notes.push(`${f.minimum ?? '…'} to ${f.maximum ?? '…'}`)
  if (f.max_items !== null) notes.push(`at most ${f.max_items}`)
  if (f.required) notes.push('required')
  return `${f.title ?? f.name} (${notes.join(', ')})`
}

/** `1 Red (red) · 2 Green (green)`: the choices, numbered; null for a field without. */
export function choicesLine(f: Field): string | null {
  if (!f.options) return null
  return f.options
    .map((o, i) => `${i + 1} ${o.title}${o.title === o.value ? '' : ` (${o.value})`}`)
    .join(' · ')
}

/** The text a field starts with: its default. */
export function defaultText(f: Field): string {
  if (f.default === null) return ''
  if (Array.isArray(f.default)) return f.default.join(', ')
  if (typeof f.default === 'boolean') return f.default ? 'y' : 'n'
  return String(f.default)
}

function choiceOf(f: Field, text: string): string | undefined {
  const typed = text.trim().toLowerCase()
  const options = f.options ?? []
  const n = Number(typed)
  if (Number.isInteger(n) && n >= 1 && n <= options.length && !options.some((o) => o.value === typed))
    return options[n - 1].value
  return options.find((o) => o.value.toLowerCase() === typed || o.title.toLowerCase() === typed)?.value
}

/** A typed value read for its field; undefined when left empty; an error says what to type. */
export function readValue(f: Field, text: string): { value: FieldValue | undefined } | { error: string } {
  const t = text.trim()
  if (t === '') return { value: undefined }
  if (f.type === 'boolean') {
    if (/^(y|yes|true)$/i.test(t)) return { value: true }
    if (/^(n|no|false)$/i.test(t)) return { value: false }
    return { error: 'type y or n' }
  }
  if (f.type === 'number' || f.type === 'integer') {
    const n = Number(t)
    return Number.isFinite(n) ? { value: n } : { error: 'type a number' }
  }
  if (f.type === 'array') {
    const picked = t
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean)
    const values = picked.map((x) => (f.options ? choiceOf(f, x) : x))
    const bad = picked.find((_, i) => values[i] === undefined)
    return bad === undefined ? { value: values as string[] } : { error: `${bad} is not one of the choices` }
  }
  if (f.options) {
    const v = choiceOf(f, t)
    return v === undefined ? { error: 'not one of the choices' } : { value: v }
  }
  return { value: text }
}

/** The form's content from the typed texts, or each field's error (a required field left empty too). */
export function contentOf(
  fields: Field[],
  texts: Record<string, string>,
): { content: Record<string, FieldValue> } | { errors: Record<string, string> } {
  const content: Record<string, FieldValue> = {}
  const errors: Record<string, string> = {}
  for (const f of fields) {
    const r = readValue(f, texts[f.name] ?? '')
    if ('error' in r) errors[f.name] = r.error
    else if (r.value !== undefined) content[f.name] = r.value
    else if (f.required) errors[f.name] = 'required'
  }
  return Object.keys(errors).length > 0 ? { errors } : { content }
}

/** The question's head: `asker asks: Who are you?`. */
export function questionHead(q: Pick<Question, 'server' | 'message'>): string {
  return `MCP server ${q.server} asks: ${q.message}`
}

/** What an answer did, said after it (`accepted`, `declined`, `cancelled`). */
export const ANSWERED: Record<Answer['action'], string> = {
  accept: 'accepted',
  decline: 'declined',
  cancel: 'cancelled',
}
