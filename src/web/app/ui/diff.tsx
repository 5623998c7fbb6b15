// An edit as a diff: the lines an edit removes and adds (a tool call's old and new text).
import { sharedEnds } from '../api/shared-views.ts'

export interface DiffLine {
  kind: 'same' | 'remove' | 'add'
  text: string
}

/** The lines of `before` and `after` with their common start and end kept as context. */
export function lineDiff(before: string, after: string, context = 2): DiffLine[] {
  const { a, b, start, end } = sharedEnds(before, after)
  const out: DiffLine[] = []
  for (const text of a.slice(Math.max(0, start - context), start)) out.push({ kind: 'same', text })
  for (const text of a.slice(start, a.length - end)) out.push({ kind: 'remove', text })
  for (const text of b.slice(start, b.length - end)) out.push({ kind: 'add', text })
  for (const text of a.slice(a.length - end, a.length - end + context)) out.push({ kind: 'same', text })
  return out
}

const MARK = { same: ' ', remove: '-', add: '+' } as const

export function Diff({ lines, path }: { lines: DiffLine[]; path?: string }) {
  return (
    <div class="diff">
      {path ? <div class="diff-path">{path}</div> : null}
      <pre>
        {lines.map((l, i) => (
          <div key={i} class={`diff-${l.kind}`}>
            {MARK[l.kind]} {l.text}
          </div>
        ))}
      </pre>
    </div>
  )
}
