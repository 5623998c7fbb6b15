// From the files found to what a step sends: the session's selection turns files off, a total
// budget bounds the text (the nearest files get it first), and each file is wrapped with its
// path so the model knows where a rule came from and which one is nearer the work.

import { characterBoundary } from '../util/text-file.ts'
import type { FoundFile, Scope, SkipReason } from './files.ts'

/** Bytes of instruction text a step sends in all (the wrappers not counted). */
export const MAX_TOTAL_BYTES = 64 * 1024

export type SourceReason = SkipReason | 'over_total_budget'

/** One file as the session read lists it. */
export interface InstructionSource {
  path: string
  scope: Scope
  /** `loaded`: sent; `off`: the session's selection turned it off; `skipped`: see `reason`. */
  state: 'loaded' | 'off' | 'skipped'
  reason: SourceReason | null
  /** Size on disk. */
  bytes: number
  /** Bytes of the file's text that the step sends. */
  sent_bytes: number
  /** Only the file's beginning is sent (the per-file or the total cap). */
  truncated: boolean
}

export interface Composed {
  sources: InstructionSource[]
  /** The system text of a step, or null when no file is loaded. */
  system: string | null
}

/**
 * Whether a file is on: an entry for its path decides, else one for its scope (`global`,
 * `workspace`), else it is on. Paths are absolute, so they never collide with a scope name.
 */
export function isOn(file: Pick<FoundFile, 'path' | 'scope'>, selection: Record<string, boolean>): boolean {
  return selection[file.path] ?? selection[file.scope] ?? true
}

export function compose(files: FoundFile[], selection: Record<string, boolean>): Composed {
  const sources: InstructionSource[] = files.map((f) => ({
    path: f.path,
    scope: f.scope,
    state: f.skipped ? 'skipped' : isOn(f, selection) ? 'loaded' : 'off',
    reason: f.skipped,
    bytes: f.bytes,
    sent_bytes: 0,
    truncated: false,
  }))
  const texts: (string | null)[] = files.map(() => null)
  // The budget goes nearest first (the list is in send order, nearest last): the workspace's
  // own rules are the most specific, the outer ones and the global file come after.
  let left = MAX_TOTAL_BYTES
  for (let i = files.length - 1; i >= 0; i--) {
    const s = sources[i]
    const text = files[i].text
    if (s.state !== 'loaded' || text === null) continue
    if (left === 0) {
      Object.assign(s, { state: 'skipped', reason: 'over_total_budget', truncated: false })
      continue
    }
    const bytes = Buffer.from(text, 'utf8')
    const end = bytes.length <= left ? bytes.length : characterBoundary(bytes, left)
    texts[i] = end === bytes.length ? text : bytes.subarray(0, end).toString('utf8')
    s.sent_bytes = end
    s.truncated = files[i].truncated || end < bytes.length
    left -= end
  }
  const blocks = sources.flatMap((s, i) => (texts[i] === null ? [] : [wrap(s, texts[i])]))
  return { sources, system: blocks.length === 0 ? null : [PREFACE, ...blocks].join('\n\n') }
}

const PREFACE =
  "Instruction files follow, the user's global file first, then one file per directory from the " +
  'outermost down to the workspace. Each applies to its directory and everything below it; where ' +
  'they disagree, the later (nearer) file wins.'

function wrap(s: InstructionSource, text: string): string {
  const body = text.endsWith('\n') ? text : `${text}\n`
  const cut = s.truncated
    ? `[cut here: the file has ${s.bytes} bytes; the first ${s.sent_bytes} are shown]\n`
    : ''
  return `<instructions path=${JSON.stringify(s.path)} scope="${s.scope}">\n${body}${cut}</instructions>`
}
