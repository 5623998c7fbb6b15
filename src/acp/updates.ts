// The daemon's events and history entries as ACP session/update notifications. Pure
// functions over a small per-session state (which output is text or reasoning, what each
// tool call is), used for live events and for a replayed history alike: the live follower
// maps the stream's events, a session/load maps the history's entries.
import { isAbsolute, resolve } from 'node:path'
import type { SessionUpdate, ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk'

/** A call as the mapping keeps it between its first sight and its end. */
interface CallInfo {
  name: string
  args: Record<string, unknown>
  /** The end of what the call printed so far (tool.progress), at most PROGRESS_TAIL characters. */
  output: string
}

/** What the mapping remembers of a session between events. */
export interface MappingState {
  /** The session's workspace: tool paths are relative to it, ACP paths are absolute. */
  workspace: string
  /** Output content ids of the run in progress and whether each is text or reasoning. */
  outputs: Map<string, 'text' | 'reasoning'>
  /** Calls seen and not yet ended, by call id. */
  calls: Map<string, CallInfo>
}

export const newMappingState = (workspace: string): MappingState => ({
  workspace,
  outputs: new Map(),
  calls: new Map(),
})

/** One event of the session stream (a frame's data). */
export interface SessionEvent {
  kind: string
  payload: Record<string, any>
}

/** One history entry (HistoryEntry of the API). */
export interface Entry {
  id: string
  kind: string
  content: Record<string, any>
}

/** A running command's output shown to the editor: its last 16 Ki characters. */
const PROGRESS_TAIL = 16 * 1024

/** hearth's built-in tools by the kind ACP shows them as; MCP tools are `other`. */
const KIND_OF_TOOL: Record<string, ToolKind> = {
  read: 'read',
  list: 'search',
  glob: 'search',
  grep: 'search',
  write: 'edit',
  edit: 'edit',
  shell: 'execute',
  job_start: 'execute',
  job_stop: 'execute',
  job_output: 'read',
  job_list: 'read',
  skill: 'think',
}

export const toolKindOf = (name: string): ToolKind => KIND_OF_TOOL[name] ?? 'other'

/** A call's arguments: the model's JSON text (or an object), {} when it does not parse. */
export function argumentsOf(raw: unknown): Record<string, unknown> {
  if (raw !== null && typeof raw === 'object') return raw as Record<string, unknown>
  if (typeof raw !== 'string') return {}
  try {
    const parsed = JSON.parse(raw)
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {}
  } catch {
    return {}
  }
}

const absolute = (workspace: string, path: string) => (isAbsolute(path) ? path : resolve(workspace, path))
const text = (t: string) => ({ type: 'text' as const, text: t })
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)

/** Where a call works: the file it reads or changes, or the folder it searches. */
export function locationsOf(
  name: string,
  args: Record<string, unknown>,
  workspace: string,
): ToolCallLocation[] {
  const path = str(args.path)
  if (name === 'read' && path) {
    const line = typeof args.offset === 'number' ? args.offset : undefined
    return [{ path: absolute(workspace, path), ...(line ? { line } : {}) }]
  }
  if ((name === 'write' || name === 'edit') && path) return [{ path: absolute(workspace, path) }]
  if (name === 'list' || name === 'glob' || name === 'grep')
    return [{ path: absolute(workspace, path ?? '.') }]
  return []
}

/**
 * What an edit or a write changes, as ACP diffs: a write's whole new content (its old text
 * is not known here), each replacement of an edit. Empty for other tools.
 */
export function diffsOf(name: string, args: Record<string, unknown>, workspace: string): ToolCallContent[] {
  const path = str(args.path)
  if (!path) return []
  const at = absolute(workspace, path)
  if (name === 'write' && typeof args.content === 'string')
    return [{ type: 'diff', path: at, oldText: null, newText: args.content }]
  if (name !== 'edit') return []
  const items = Array.isArray(args.edits) ? args.edits : [args]
  const diffs: ToolCallContent[] = []
  for (const item of items as Record<string, unknown>[]) {
    const oldText = str(item?.old_string)
    const newText = str(item?.new_string)
    if (oldText !== undefined && newText !== undefined)
      diffs.push({ type: 'diff', path: at, oldText, newText })
  }
  return diffs
}

/** Text shown as a fenced block, the fence longer than any run of backticks inside. */
export function fenced(body: string): string {
  let fence = '```'
  while (body.includes(fence)) fence += '`'
  return `${fence}\n${body}${body.endsWith('\n') ? '' : '\n'}${fence}`
}

const blockOf = (body: string): ToolCallContent => ({ type: 'content', content: text(fenced(body)) })

/** The first sight of a call (its `tool_call` entry): pending, with what it is about to do. */
function toolCallOf(content: Record<string, any>, state: MappingState): SessionUpdate {
  const name = String(content.name ?? '')
  const args = argumentsOf(content.arguments)
  state.calls.set(String(content.call_id), { name, args, output: '' })
  const diffs = diffsOf(name, args, state.workspace)
  return {
    sessionUpdate: 'tool_call',
    toolCallId: String(content.call_id),
    title: String(content.summary ?? name),
    kind: toolKindOf(name),
    status: 'pending',
    locations: locationsOf(name, args, state.workspace),
    rawInput: args,
    ...(diffs.length > 0 ? { content: diffs } : {}),
  }
}

/** A call's end (`tool.ended` or its `tool_result` entry): its outcome, output and diffs. */
function toolEndOf(
  callId: string,
  outcome: string,
  output: string,
  meta: unknown,
  state: MappingState,
): SessionUpdate {
  const call = state.calls.get(callId)
  state.calls.delete(callId)
  const ok = outcome === 'ok'
  const diffs = ok && call ? diffsOf(call.name, call.args, state.workspace) : []
  const shown = ok || output.length > 0 ? output : outcome
  const content: ToolCallContent[] = [...diffs]
  if (!(diffs.length > 0 && call?.name === 'write') && shown.length > 0) content.push(blockOf(shown))
  return {
    sessionUpdate: 'tool_call_update',
    toolCallId: callId,
    status: ok ? 'completed' : 'failed',
    content,
    rawOutput: { outcome, output, meta },
  }
}

function userUpdates(content: Record<string, any>): SessionUpdate[] {
  const updates: SessionUpdate[] = []
  if (typeof content.text === 'string' && content.text.length > 0)
    updates.push({ sessionUpdate: 'user_message_chunk', content: text(content.text) })
  const images = Array.isArray(content.images) ? content.images.length : 0
  if (images > 0)
    updates.push({
      sessionUpdate: 'user_message_chunk',
      content: text(images === 1 ? '[1 image]' : `[${images} images]`),
    })
  return updates
}

/** A live event's updates; events that show nothing to an editor give none. */
export function updatesOfEvent(event: SessionEvent, state: MappingState): SessionUpdate[] {
  const p = event.payload
  switch (event.kind) {
    case 'output.started':
      state.outputs.set(p.content_id, p.kind === 'reasoning' ? 'reasoning' : 'text')
      return []
    case 'output.delta':
      if (typeof p.delta !== 'string' || p.delta.length === 0) return []
      return [
        {
          sessionUpdate:
            state.outputs.get(p.content_id) === 'reasoning' ? 'agent_thought_chunk' : 'agent_message_chunk',
          content: text(p.delta),
        },
      ]
    case 'entry.added': {
      // Answers and reasoning were streamed as deltas, results come as tool.ended.
      const entry = p.entry as Entry
      if (entry?.kind === 'tool_call') return [toolCallOf(entry.content, state)]
      if (entry?.kind === 'user') return userUpdates(entry.content)
      return []
    }
    case 'tool.started':
      return [{ sessionUpdate: 'tool_call_update', toolCallId: p.call_id, status: 'in_progress' }]
    case 'tool.progress': {
      const call = state.calls.get(p.call_id)
      if (!call || typeof p.text !== 'string') return []
      call.output = (call.output + p.text).slice(-PROGRESS_TAIL)
      return [{ sessionUpdate: 'tool_call_update', toolCallId: p.call_id, content: [blockOf(call.output)] }]
    }
    case 'tool.ended':
      return [toolEndOf(p.call_id, p.outcome, String(p.output ?? ''), p.meta, state)]
    case 'run.ended':
      state.outputs.clear()
      return []
    default:
      return []
  }
}

/** A history entry's updates, as a replay shows it. */
export function updatesOfEntry(entry: Entry, state: MappingState): SessionUpdate[] {
  const c = entry.content ?? {}
  switch (entry.kind) {
    case 'user':
      return userUpdates(c)
    case 'assistant':
      return typeof c.text === 'string' && c.text.length > 0
        ? [{ sessionUpdate: 'agent_message_chunk', content: text(c.text) }]
        : []
    case 'reasoning':
      return typeof c.text === 'string' && c.text.length > 0
        ? [{ sessionUpdate: 'agent_thought_chunk', content: text(c.text) }]
        : []
    case 'tool_call':
      return [toolCallOf(c, state)]
    case 'tool_result':
      return [toolEndOf(String(c.call_id), String(c.outcome), String(c.output ?? ''), c.meta, state)]
    case 'error': {
      const problem = c.problem ?? {}
      const said = problem.detail ?? problem.title ?? 'the run failed'
      return [
        { sessionUpdate: 'agent_message_chunk', content: text(`\n\n(${problem.code ?? 'error'}: ${said})`) },
      ]
    }
    default:
      return []
  }
}

/**
 * The context's fill after a run (a session read's `usage`): the last step's tokens against
 * the model's window. None while the catalogue does not know the window.
 */
export function usageUpdates(usage: Record<string, unknown> | null | undefined): SessionUpdate[] {
  const size = usage?.context_window_tokens
  const used = usage?.total_tokens ?? sumOf(usage?.prompt_tokens, usage?.completion_tokens)
  if (typeof size !== 'number' || typeof used !== 'number') return []
  return [{ sessionUpdate: 'usage_update', used, size }]
}

const sumOf = (a: unknown, b: unknown) =>
  typeof a === 'number' ? a + (typeof b === 'number' ? b : 0) : undefined
