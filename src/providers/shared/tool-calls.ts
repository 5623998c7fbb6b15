// Function-call arguments as they leave a decoder and as they are replayed. The model
// sends its arguments as JSON text; hearth keeps that text, only tidied: surrounding
// whitespace (some models pad it with newlines) is dropped, a call without arguments
// (an empty string, as servers send for a tool that takes none) becomes `{}`, and a
// server that sends an object instead of a string has it serialised. Invalid JSON is
// kept as it is: the tool reports it to the model, which can try again.
import { randomBytes } from 'node:crypto'
import type { NeutralEvent, StopReason } from '../types.ts'

/** The arguments of a decoded call. */
export function finalArguments(raw: unknown): string {
  if (raw !== null && typeof raw === 'object') return JSON.stringify(raw)
  const text = typeof raw === 'string' ? raw.trim() : ''
  return text === '' ? '{}' : text
}

/** The arguments of a replayed call: every wire wants a JSON text, `{}` for none. */
export function replayArguments(args: string): string {
  return args.trim() === '' ? '{}' : args
}

/** A call as a decoder assembles it. */
export interface CallDraft {
  id: string
  name: string
  args: string
}

/**
 * The calls that may be emitted when a step ends with `stop`: every call the model made,
 * and when the output was cut (`length`, `content_filter`) only those whose arguments are
 * a whole JSON object (the cut one would run with half its arguments). A call without a
 * name but with an id or arguments is kept, its name empty: like a call of an unknown tool
 * it gets an error result, so the model learns of it. Only pieces of nothing (no name, no
 * id, no arguments: what some servers send after the finish) make no call.
 */
export function completeCalls<C extends CallDraft>(calls: C[], stop: StopReason): C[] {
  const made = calls.filter((c) => c.name !== '' || c.id !== '' || c.args.trim() !== '')
  if (stop !== 'length' && stop !== 'content_filter') return made
  return made.filter((c) => isJsonObject(finalArguments(c.args)))
}

function isJsonObject(text: string): boolean {
  try {
    const value = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value)
  } catch {
    return false
  }
}

/** The neutral event of a finished call; a call the server sent without an id gets one. */
export function toolCallEvent(index: number, call: CallDraft): NeutralEvent {
  const id = call.id !== '' ? call.id : generatedCallId()
  return { type: 'tool_call', index, id, name: call.name, arguments: finalArguments(call.args) }
}

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'

/**
 * Nine letters and digits: the strictest id rule among compatible servers (Mistral's),
 * so the id is accepted when the call is replayed to any of them.
 */
function generatedCallId(): string {
  const bytes = randomBytes(9)
  return [...bytes].map((b) => ID_ALPHABET[b % ID_ALPHABET.length]).join('')
}

const PARALLEL_WRAPPERS = new Set(['parallel', 'multi_tool_use.parallel'])
const RECIPIENT_PREFIX = 'functions.'

/**
 * The calls an OpenAI model's parallel wrapper stands for, or null for any other call.
 * Models sometimes emit their internal wrapper as a function call of its own: `parallel`
 * (or `multi_tool_use.parallel`) with `{"tool_uses": [{"recipient_name": "functions.read",
 * "parameters": {…}}, …]}`. When no declared tool has that name and every recipient is a
 * declared tool with object parameters, each becomes a call: id `<id>_<n>`, arguments the
 * parameters' JSON. Each is then replayed and answered as its own call.
 */
export function unwrapParallel(call: CallDraft, declared: ReadonlySet<string>): CallDraft[] | null {
  if (!PARALLEL_WRAPPERS.has(call.name) || declared.has(call.name)) return null
  let uses: unknown
  try {
    uses = JSON.parse(finalArguments(call.args))?.tool_uses
  } catch {
    return null
  }
  if (!Array.isArray(uses) || uses.length === 0) return null
  const calls: CallDraft[] = []
  for (const [n, use] of uses.entries()) {
    const recipient = typeof use?.recipient_name === 'string' ? use.recipient_name : ''
    const name = recipient.startsWith(RECIPIENT_PREFIX) ? recipient.slice(RECIPIENT_PREFIX.length) : ''
    const params = use?.parameters
    if (!declared.has(name) || typeof params !== 'object' || params === null || Array.isArray(params))
      return null
    calls.push({ id: `${call.id}_${n}`, name, args: JSON.stringify(params) })
  }
  return calls
}
