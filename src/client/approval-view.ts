// What an approval asks, worded for a person: the CLI's prompt (src/cli/approvals.ts) and the
// terminal client's approval block (src/tui/blocks.ts) both show these lines. An edit shows
// its diff, a write its path, size and first lines (a diff when it replaces a file the client
// can read), a command its whole line and directory, anything else (an MCP call, job_stop)
// its arguments. "always" is worded for what `remember: session` keeps (docs/tools.md): the
// exact command line for a tool with a `command`, else the tool for the session.
import { readFileSync, statSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { type Args, alwaysCovers, mcpName, parseArgs, sharedEnds, str } from './approval-words.ts'

export { alwaysCovers, mcpName }

export interface ApprovalRequest {
  request_id: string
  tool: string
  summary: string
  effect?: string
  /** The arguments as the model wrote them (JSON text); absent on a reopened session's request. */
  arguments?: string
}

export type ApprovalAnswer = { decision: 'allow' | 'deny'; remember: 'once' | 'session' }

/** One line of the details: plain, a removed or added line of a diff, or a quiet remark. */
export interface DetailLine {
  kind: 'text' | 'remove' | 'add' | 'note'
  text: string
}

/** Detail lines shown at most; the rest are counted. */
const MAX_LINES = 24
/** First lines of a new file shown. */
const FIRST_LINES = 8
/** A file replaced is read for its diff only up to this size. */
const DIFF_MAX_BYTES = 1024 * 1024

/**
 * A call's heading, naming the tool once: its summary, which names it already (`write
 * a.txt`, `shell: ls`, `job stop 3`), marked `MCP` for a call to an MCP server (`MCP github:
 * create_issue {…}`); the tool's name when there is no summary.
 */
export function callHeading(tool: string, summary: string): string {
  const mcp = mcpName(tool)
  if (mcp) return `MCP ${summary || `${mcp.server}: ${mcp.tool}`}`
  return summary || tool
}

/** The details of what allowing the call would do. */
export function approvalDetails(r: ApprovalRequest, workspace?: string): DetailLine[] {
  const args = parseArgs(r.arguments)
  if (!args) return []
  const lines = detailsOf(r.tool, args, workspace)
  if (lines.length <= MAX_LINES) return lines
  const shown = lines.slice(0, MAX_LINES - 1)
  shown.push({ kind: 'note', text: `… ${lines.length - shown.length} more lines` })
  return shown
}

function detailsOf(tool: string, args: Args, workspace: string | undefined): DetailLine[] {
  const command = str(args.command)
  if (command !== undefined) {
    const dir = str(args.cwd) ?? '.'
    const where = workspace && !isAbsolute(dir) ? resolve(workspace, dir) : dir
    return [
      ...command
        .split('\n')
        .map((text, i) => ({ kind: 'text' as const, text: `${i === 0 ? '$ ' : '  '}${text}` })),
      { kind: 'note', text: `in ${where}` },
    ]
  }
  if (tool === 'edit') return editDetails(args)
  if (tool === 'write') return writeDetails(args, workspace)
  return JSON.stringify(args, null, 2)
    .split('\n')
    .map((text) => ({ kind: 'text', text }))
}

function editDetails(args: Args): DetailLine[] {
  const path = str(args.path) ?? '?'
  const edits = Array.isArray(args.edits)
    ? (args.edits as Args[])
    : [{ old_string: args.old_string, new_string: args.new_string, replace_all: args.replace_all }]
  const out: DetailLine[] = [{ kind: 'note', text: `in ${path}` }]
  edits.forEach((e, i) => {
    if (edits.length > 1) out.push({ kind: 'note', text: `edit ${i + 1} of ${edits.length}` })
    if (e.replace_all === true) out.push({ kind: 'note', text: 'every occurrence' })
    out.push(...lineDiff(str(e.old_string) ?? '', str(e.new_string) ?? ''))
  })
  return out
}

function writeDetails(args: Args, workspace: string | undefined): DetailLine[] {
  const path = str(args.path) ?? '?'
  const content = str(args.content) ?? ''
  const size = sizeText(Buffer.byteLength(content), content)
  const before = workspace ? currentText(resolve(workspace, path)) : undefined
  if (before === undefined) {
    const lines = content.split('\n')
    if (lines.at(-1) === '') lines.pop()
    const shown = lines.slice(0, FIRST_LINES).map((text) => ({ kind: 'add' as const, text }))
    const rest = lines.length - shown.length
    return [
      { kind: 'note', text: `${path}, ${size}` },
      ...shown,
      ...(rest > 0 ? [{ kind: 'note' as const, text: `… ${rest} more lines` }] : []),
    ]
  }
  return [{ kind: 'note', text: `${path}, ${size}, replaces the file` }, ...lineDiff(before, content)]
}

/** The text of the file the write would replace, when the client can read it. */
function currentText(path: string): string | undefined {
  try {
    if (statSync(path).size > DIFF_MAX_BYTES) return undefined
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

function sizeText(bytes: number, text: string): string {
  const lines = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
  return `${bytes.toLocaleString('en')} bytes, ${lines} line${lines === 1 ? '' : 's'}`
}

/**
 * The lines that change from `before` to `after`: the lines both share at the start and
 * the end are left out (one of each kept for context), the rest shown removed then added.
 */
export function lineDiff(before: string, after: string): DetailLine[] {
  const { a, b, start, end } = sharedEnds(before, after)
  if (start === a.length && start === b.length) return [{ kind: 'note', text: 'no change' }]
  const out: DetailLine[] = []
  if (start > 1) out.push({ kind: 'note', text: `… ${start - 1} unchanged line${start === 2 ? '' : 's'}` })
  if (start > 0) out.push({ kind: 'text', text: a[start - 1] })
  for (const text of a.slice(start, a.length - end)) out.push({ kind: 'remove', text })
  for (const text of b.slice(start, b.length - end)) out.push({ kind: 'add', text })
  if (end > 0 && a[a.length - end] !== '') out.push({ kind: 'text', text: a[a.length - end] })
  return out
}

/** A decision as the transcript and the CLI say it: `allowed`, `allowed (always)`, `denied`. */
export function decisionText(decision: string, remember?: string): string {
  if (decision === 'allow') return remember === 'session' ? 'allowed (always)' : 'allowed'
  if (decision === 'deny') return 'denied'
  return decision
}
