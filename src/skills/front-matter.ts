// The YAML front matter of a SKILL.md or a command file: a `---` line, YAML, a `---` line,
// then the body. Parsed with the `yaml` package; a file whose front matter does not parse,
// or is not a mapping, gets a reason instead of throwing.
import { createRequire } from 'node:module'

/**
 * The `yaml` package, loaded on the first file with front matter: neither an idle daemon
 * nor an idle kernel parses any, so neither runs its modules' code at start-up. It is
 * CommonJS, behind a lazy initializer in a bundle either way: the synchronous `require`
 * (the bundle banner's) costs nothing; from source Node loads the package synchronously.
 */
let yaml: typeof import('yaml') | undefined
function loadYaml(): typeof import('yaml') {
  yaml ??= typeof require === 'function' ? require('yaml') : createRequire(import.meta.url)('yaml')
  return yaml as typeof import('yaml')
}

export type FrontMatter =
  | { ok: true; data: Record<string, unknown>; body: string }
  | { ok: false; reason: string }

const OPEN = /^---[ \t]*\r?\n/
const CLOSE = /^---[ \t]*$/m

/** Parses kept, by the file's text: every step, read and catalog page finds the files again. */
const memo = new Map<string, FrontMatter>()
/** Characters of text the memo holds at most (it starts over past them): ~8 MB. */
const MEMO_CHARS = 4 * 1024 * 1024
let memoChars = 0

/**
 * Splits and parses; a file without front matter is all body with empty data. The same text
 * gives the same (shared, not to be changed) result without parsing it again (YAML costs
 * ~20 µs a file, a hundred skills 2 ms).
 */
export function splitFrontMatter(text: string): FrontMatter {
  const hit = memo.get(text)
  if (hit) return hit
  const parsed = parse(text)
  if (memoChars + text.length > MEMO_CHARS) {
    memo.clear()
    memoChars = 0
  }
  memo.set(text, parsed)
  memoChars += text.length
  return parsed
}

function parse(text: string): FrontMatter {
  const src = text.startsWith('\uFEFF') ? text.slice(1) : text
  const open = OPEN.exec(src)
  if (!open) return { ok: true, data: {}, body: src }
  const rest = src.slice(open[0].length)
  const close = CLOSE.exec(rest)
  if (!close) return { ok: false, reason: 'the front matter has no closing `---` line' }
  let data: unknown
  try {
    // Plain data only: no custom tags, and a bound on alias expansion (a "billion laughs" file).
    data = loadYaml().parse(rest.slice(0, close.index), { schema: 'core', maxAliasCount: 100 })
  } catch (err) {
    return { ok: false, reason: `the front matter is not valid YAML: ${firstLine((err as Error).message)}` }
  }
  if (data === null || data === undefined) data = {}
  if (typeof data !== 'object' || Array.isArray(data))
    return { ok: false, reason: 'the front matter is not a mapping of keys to values' }
  const body = rest.slice(close.index + close[0].length).replace(/^\r?\n/, '')
  return { ok: true, data: data as Record<string, unknown>, body }
}

function firstLine(s: string): string {
  return s.split('\n', 1)[0].slice(0, 200)
}
