// The text side of `edit`: exact-match replacements applied in order to a file's text, all
// or none, with a refusal that says why when a match is missing or ambiguous and, for a
// missing one, where the model's text probably went wrong.

export interface Replacement {
  old_string: string
  new_string: string
  replace_all?: boolean
}

export type Applied =
  | { ok: true; text: string; replacements: number; firstLine: number; lastLine: number }
  | { ok: false; message: string }

/** 1-based line number of a character offset. */
export function lineAt(text: string, offset: number): number {
  let n = 1
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) n++
  return n
}

function offsets(text: string, needle: string): number[] {
  const found: number[] = []
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) found.push(i)
  return found
}

/** Applies the edits in order, each to the result of the one before; any refusal cancels all. */
export function applyEdits(original: string, edits: readonly Replacement[]): Applied {
  let text = original
  let replacements = 0
  let firstLine = Number.POSITIVE_INFINITY
  let lastLine = 0
  for (const [i, e] of edits.entries()) {
    const label = edits.length > 1 ? `Edit ${i + 1} of ${edits.length}: ` : ''
    const none = edits.length > 1 ? ' No edit was applied; the file is unchanged.' : ' The file is unchanged.'
    if (e.old_string === '') return { ok: false, message: `${label}old_string is empty.${none}` }
    if (e.old_string === e.new_string)
      return { ok: false, message: `${label}old_string and new_string are the same.${none}` }
    const at = offsets(text, e.old_string)
    if (at.length === 0) return { ok: false, message: `${label}${missing(text, e.old_string)}${none}` }
    if (at.length > 1 && !e.replace_all) {
      const lines = at.slice(0, 10).map((o) => lineAt(text, o))
      const more = at.length > 10 ? ', …' : ''
      return {
        ok: false,
        message:
          `${label}old_string matches ${at.length} times (at lines ${lines.join(', ')}${more}). Include more ` +
          `surrounding lines to pick one, or set replace_all: true to change every one.${none}`,
      }
    }
    text = replaceAt(text, at, e.old_string, e.new_string)
    replacements += at.length
    const start = lineAt(text, at[0])
    firstLine = Math.min(firstLine, start)
    lastLine = Math.max(lastLine, start + countNewlines(e.new_string))
  }
  return { ok: true, text, replacements, firstLine, lastLine }
}

/** Replaces at known offsets by slicing: "$&" and friends in new text stay literal. */
function replaceAt(text: string, at: number[], old: string, next: string): string {
  const parts: string[] = []
  let from = 0
  for (const o of at) {
    parts.push(text.slice(from, o), next)
    from = o + old.length
  }
  parts.push(text.slice(from))
  return parts.join('')
}

function countNewlines(s: string): number {
  let n = 0
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++
  return n
}

const READ_PREFIX = /^\s*\d+\t/

/** Why old_string was not found, and where the model's copy probably went wrong. */
function missing(text: string, old: string): string {
  const head = 'old_string was not found in the file.'
  const oldLines = old.split('\n')
  if (oldLines.filter((l) => l.trim() !== '').every((l) => READ_PREFIX.test(l)))
    return `${head} It seems to include the line numbers that read shows; leave them out.`
  const fileLines = text.split('\n')
  const loose = looseMatch(fileLines, oldLines)
  if (loose !== null)
    return (
      `${head} The same text with different indentation or spacing is at line ${loose}; ` +
      'copy it exactly as read shows it.'
    )
  const first = oldLines.find((l) => l.trim() !== '')?.trim() ?? ''
  // A first line as short as "}" says nothing about where the text was meant to be.
  const exact = fileLines.findIndex((l) => l.includes(first))
  if (first.length >= 6 && exact >= 0)
    return `${head} Its first line is at line ${exact + 1}, but what follows differs; read the file again there.`
  const near = closestLine(fileLines, first)
  if (near !== null)
    return `${head} The closest line is ${near.n}: ${JSON.stringify(near.text.trim().slice(0, 200))}. Read the file again and copy the text exactly.`
  return `${head} Read the file again to see its current content.`
}

/** The line where old's lines match the file's with whitespace ignored, or null. */
function looseMatch(fileLines: string[], oldLines: string[]): number | null {
  const squash = (l: string) => l.replace(/\s+/g, '')
  const want = oldLines.map(squash)
  while (want.length > 0 && want[want.length - 1] === '') want.pop()
  while (want.length > 0 && want[0] === '') want.shift()
  if (want.length === 0) return null
  const have = fileLines.map(squash)
  for (let i = 0; i + want.length <= have.length; i++) {
    let j = 0
    while (j < want.length && have[i + j] === want[j]) j++
    if (j === want.length) return i + 1
  }
  return null
}

function bigrams(s: string): Map<string, number> {
  const m = new Map<string, number>()
  for (let i = 0; i < s.length - 1; i++) {
    const b = s.slice(i, i + 2)
    m.set(b, (m.get(b) ?? 0) + 1)
  }
  return m
}

/** Sørensen–Dice similarity of two strings' character pairs, 0 to 1. */
function similarity(a: Map<string, number>, aLen: number, b: string): number {
  const bb = bigrams(b)
  let shared = 0
  for (const [k, v] of bb) shared += Math.min(v, a.get(k) ?? 0)
  const total = Math.max(aLen - 1, 0) + Math.max(b.length - 1, 0)
  return total === 0 ? 0 : (2 * shared) / total
}

/** The file line most like `want` (a similarity of at least 0.6), among the first 20,000. */
function closestLine(fileLines: string[], want: string): { n: number; text: string } | null {
  if (want.length < 4) return null
  const target = bigrams(want)
  let best: { n: number; text: string; score: number } | null = null
  for (let i = 0; i < Math.min(fileLines.length, 20_000); i++) {
    const line = fileLines[i].trim()
    if (line.length < 2) continue
    const score = similarity(target, want.length, line)
    if (score >= 0.6 && (!best || score > best.score)) best = { n: i + 1, text: fileLines[i], score }
  }
  return best
}
