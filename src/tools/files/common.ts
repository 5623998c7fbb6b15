// What the file tools share: result builders, argument checks against the schema the model
// saw, and the small text helpers every tool uses to keep its output bounded.
import type { TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import type { ToolResult } from '../types.ts'

export function ok(output: string, meta?: Record<string, unknown>): ToolResult {
  return meta ? { outcome: 'ok', output, meta } : { outcome: 'ok', output }
}

export function fail(output: string, meta?: Record<string, unknown>): ToolResult {
  return meta ? { outcome: 'error', output, meta } : { outcome: 'error', output }
}

export function interrupted(output = 'Interrupted before it finished.'): ToolResult {
  return { outcome: 'interrupted', output }
}

type Validator = ReturnType<typeof Compile>
const validators = new WeakMap<TSchema, Validator>()

/**
 * Checks arguments against the tool's schema. The kernel checks them before a call runs;
 * this second look keeps a tool safe when it is called directly, and its message names the
 * argument so the model can fix its call.
 */
export function argsError(schema: TSchema, args: unknown): string | null {
  let v = validators.get(schema)
  if (!v) {
    v = Compile(schema)
    validators.set(schema, v)
  }
  if (v.Check(args)) return null
  const errors = [...v.Errors(args)]
  const extra = errors.find((e) => e.keyword === 'additionalProperties')
  if (extra) {
    const names = (extra.params as { additionalProperties?: string[] }).additionalProperties ?? []
    return `Invalid arguments: unknown argument ${names.map((n) => JSON.stringify(n)).join(', ')}`
  }
  const first = errors.sort((a, b) => b.instancePath.length - a.instancePath.length)[0]
  const where = first?.instancePath ? first.instancePath.slice(1).replaceAll('/', '.') : 'arguments'
  return `Invalid arguments: ${where} ${first?.message ?? 'do not match the schema'}`
}

let grouped: Intl.NumberFormat | undefined

/**
 * 12345 → "12,345". Integers are grouped here: the first Intl.NumberFormat of a process pages
 * in ~5 MB of ICU data and allocates ~1.7 MB, and the tools' descriptions count at load.
 */
export function count(n: number): string {
  if (Number.isSafeInteger(n)) return String(n).replace(/\B(?=(\d{3})+$)/g, ',')
  grouped ??= new Intl.NumberFormat('en-US')
  return grouped.format(n)
}

/** A byte count for people and models: "812 bytes", "14.2 KB", "3.1 MB". */
export function bytes(n: number): string {
  if (n < 1024) return `${n} byte${n === 1 ? '' : 's'}`
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`
  return `${(n / 1024 / 1024).toFixed(1)} MB`
}

/** Cuts a line past `max` characters, saying how much was left out. */
export function cutLine(line: string, max: number): { text: string; cut: boolean } {
  if (line.length <= max) return { text: line, cut: false }
  return { text: `${line.slice(0, max)}… [${count(line.length - max)} more characters]`, cut: true }
}

/** Quotes a value for a one-line summary, shortened when long. */
export function brief(value: unknown, max = 60): string {
  const s = typeof value === 'string' ? value : JSON.stringify(value ?? '')
  const one = s.replace(/\s+/g, ' ')
  return one.length > max ? `${one.slice(0, max - 1)}…` : one
}

/** Git's test for binary content: a NUL byte in the first 8,000 bytes. */
export function looksBinary(head: Uint8Array): boolean {
  return head.subarray(0, 8000).includes(0)
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * Whether a sample decodes as UTF-8. A multi-byte character cut by the sample's end is not
 * held against it (up to three trailing bytes are left out when the sample is partial).
 */
export function isUtf8(sample: Uint8Array, partial: boolean): boolean {
  const tries = partial ? 4 : 1
  for (let drop = 0; drop < tries && drop < sample.length + 1; drop++) {
    try {
      utf8.decode(sample.subarray(0, sample.length - drop))
      return true
    } catch {
      // try one byte shorter: the sample may end inside a character
    }
  }
  return false
}

/** The message for a failed file system call, naming the path as the model gave it. */
export function fsMessage(err: unknown, shown: string): string {
  const code = (err as NodeJS.ErrnoException)?.code
  switch (code) {
    case 'ENOENT':
      return `${shown}: no such file or directory`
    case 'EACCES':
    case 'EPERM':
      return `${shown}: permission denied`
    case 'EISDIR':
      return `${shown}: is a directory`
    case 'ENOTDIR':
      return `${shown}: a component of the path is not a directory`
    case 'ELOOP': // the tools open with O_NOFOLLOW: the file was checked, then swapped for a link
      return `${shown}: changed while it was being opened (it is now a symbolic link)`
    case 'ENOSPC':
      return `${shown}: no space left on the device`
    case 'EROFS':
      return `${shown}: the file system is read-only`
    default:
      return `${shown}: ${code ?? (err instanceof Error ? err.message : String(err))}`
  }
}
