// How `hearth chat` and `hearth send` show a run's tool calls: one line when a call
// starts (its summary), a running command's output as it streams (indented, so it reads
// apart from the answer), and one line when it ends (its outcome). Approvals are asked
// by the caller; this file only words them.
import {
  type ApprovalAnswer,
  type ApprovalRequest,
  alwaysCovers,
  approvalDetails,
  callHeading,
  type DetailLine,
} from '../client/approval-view.ts'
import type { Out } from '../command-line/errors.ts'

export type { ApprovalAnswer, ApprovalRequest }

/** Lines of a call's streamed output shown; the rest is counted, not printed. */
const PROGRESS_LINE_LIMIT = 200
const GUTTER = '  │ '
const DETAIL_MARK: Record<DetailLine['kind'], string> = { text: '  ', note: '', remove: '- ', add: '+ ' }

/** Renders the tool events of one run; keeps where a streamed line stands. */
export class ToolView {
  readonly #out: Out
  /** Per call: lines printed, whether the last printed text ended its line. */
  readonly #calls = new Map<string, { lines: number; atLineStart: boolean; cut: number }>()
  /** Whether the answer text printed last left the cursor mid-line. */
  #midLine = false

  constructor(out: Out) {
    this.#out = out
  }

  /** The answer printed `text`; tool lines start on a fresh line after it. */
  answered(text: string): void {
    if (text.length > 0) this.#midLine = !text.endsWith('\n')
  }

  #freshLine(): void {
    if (this.#midLine) this.#out.write('\n')
    this.#midLine = false
  }

  started(p: { call_id: string; name: string; summary?: string }): void {
    this.#freshLine()
    this.#out.write(
      `▸ ${oneLine(p.name ? callHeading(p.name, p.summary ?? '') : p.summary || 'tool call')}\n`,
    )
    this.#calls.set(p.call_id, { lines: 0, atLineStart: true, cut: 0 })
  }

  progress(p: { call_id: string; text: string }): void {
    const c = this.#calls.get(p.call_id)
    if (!c) return
    for (const piece of p.text.split(/(?<=\n)/)) {
      if (c.lines >= PROGRESS_LINE_LIMIT) {
        if (piece.endsWith('\n')) c.cut++
        continue
      }
      if (c.atLineStart) this.#out.write(GUTTER)
      this.#out.write(piece.replace(/\r(?!\n)/g, ''))
      c.atLineStart = piece.endsWith('\n')
      if (c.atLineStart) c.lines++
    }
  }

  ended(p: { call_id: string; outcome: string; output?: string; meta?: Record<string, unknown> }): void {
    const c = this.#calls.get(p.call_id)
    if (c && !c.atLineStart) this.#out.write('\n')
    if (c && c.cut > 0) this.#out.write(`${GUTTER}… ${c.cut} more lines\n`)
    const dropped = p.meta?.progress_dropped_bytes
    if (typeof dropped === 'number')
      this.#out.write(`${GUTTER}… ${dropped.toLocaleString('en')} bytes more not streamed\n`)
    this.#calls.delete(p.call_id)
    this.#out.write(`  ${endLine(p)}\n`)
  }

  /** The question for an approval, without its answer keys. */
  static question(p: ApprovalRequest): string {
    return `Allow ${oneLine(callHeading(p.tool, p.summary))}?`
  }

  /** What allowing would do (a diff, a command and its directory…), a line each, and what "always" covers. */
  static details(p: ApprovalRequest, workspace?: string): string {
    const lines = approvalDetails(p, workspace).map((l) => `${GUTTER}${DETAIL_MARK[l.kind]}${l.text}\n`)
    return `${lines.join('')}${GUTTER}always = ${alwaysCovers(p)}\n`
  }
}

function endLine(p: { outcome: string; output?: string; meta?: Record<string, unknown> }): string {
  const exit = typeof p.meta?.exit_code === 'number' ? ` (exit ${p.meta.exit_code})` : ''
  if (p.outcome === 'ok') return `✓ done${exit}`
  const why = p.output ? `: ${oneLine(p.output)}` : ''
  if (p.outcome === 'denied') return `✗ denied${why.replace(/^: Denied: /, ': ')}`
  return `✗ ${p.outcome}${exit}${why}`
}

/** The first line of `text`, cut to fit a terminal line. */
function oneLine(text: string, max = 160): string {
  const first = text.split('\n', 1)[0]
  return first.length > max ? `${first.slice(0, max - 1)}…` : first
}

/** Reads y / n / a (always for this session) as an approval answer, or undefined. */
export function parseApprovalAnswer(line: string): ApprovalAnswer | undefined {
  const a = line.trim().toLowerCase()
  if (a === 'y' || a === 'yes') return { decision: 'allow', remember: 'once' }
  if (a === 'a' || a === 'always') return { decision: 'allow', remember: 'session' }
  if (a === 'n' || a === 'no') return { decision: 'deny', remember: 'once' }
  return undefined
}
