// `hearth sessions` and `hearth session new|show|watch`: the session commands of the CLI.
// They talk to a running daemon through the typed client and never start one.
import { homedir } from 'node:os'
import { resolve } from 'node:path'
import { v7 as uuidv7 } from 'uuid'
import { HearthClient } from '../client/client.ts'
import { createSessionOnce } from '../client/create-session.ts'
import { followSession, type StreamFrame } from '../client/session-follow.ts'
import { homeOf, parseCommand, unknownSubcommand } from '../command-line/args.ts'
import { CommandError, type Out, UsageError } from '../command-line/errors.ts'
import { handlesOf, oneSessionArg, resolveSessionId } from '../command-line/session-id.ts'
import type { SessionRead, SessionSummary } from '../schemas/session-read.ts'
import { printHistory } from './history.ts'
import { writeJson } from './output.ts'
import { rawFrame } from './run-frames.ts'
import { table } from './table.ts'

/** Page size asked for, and the most sessions `hearth sessions` prints. */
const PAGE = 200
const MAX_LISTED = 10_000

// ---- hearth sessions ------------------------------------------------------------------

export async function sessionsCommand(args: string[], out: Out, help: string): Promise<number> {
  const parsed = parseCommand(
    args,
    {
      all: { type: 'boolean' },
      search: { type: 'string' },
      json: { type: 'boolean' },
    },
    out,
    help,
  )
  if (!parsed) return 0
  const { values } = parsed
  if (values.search !== undefined && [...values.search].length > 256)
    throw new UsageError('--search takes at most 256 characters')
  const client = HearthClient.fromHome(homeOf(values.home))
  const rows: SessionSummary[] = []
  let next: string | undefined
  let more = false
  do {
    const { body } = await client.call('sessions.list', {
      query: {
        scope: values.all ? 'all' : undefined,
        search: values.search || undefined,
        limit: PAGE,
        next,
      },
    })
    for (const s of body.items) {
      if (rows.length === MAX_LISTED) {
        more = true
        break
      }
      if (values.json) out.write(`${JSON.stringify(s)}\n`)
      rows.push(s)
    }
    next = body.next ?? undefined
    if (next !== undefined && rows.length === MAX_LISTED) more = true
  } while (next !== undefined && !more)
  if (!values.json) out.write(sessionTable(rows, Date.now()))
  if (more) process.stderr.write(`hearth: showing the first ${MAX_LISTED} sessions; narrow with --search\n`)
  return 0
}

function tilde(path: string): string {
  const home = homedir()
  return home && home !== '/' && (path === home || path.startsWith(`${home}/`))
    ? `~${path.slice(home.length)}`
    : path
}

function clip(text: string, max: number): string {
  const chars = [...text.replace(/\s+/g, ' ')]
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : chars.join('')
}

/** "just now", "5 min ago", "3 h ago", "2 d ago", or the date for older activity. */
export function ago(iso: string, now: number): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000))
  if (s < 45) return 'just now'
  if (s < 90 * 60) return `${Math.max(1, Math.round(s / 60))} min ago`
  if (s < 36 * 3600) return `${Math.round(s / 3600)} h ago`
  if (s < 14 * 86400) return `${Math.round(s / 86400)} d ago`
  return iso.slice(0, 10)
}

function displayName(s: SessionSummary): string {
  return s.name || s.automatic_name || '(unnamed)'
}

export function sessionTable(rows: readonly SessionSummary[], now: number): string {
  if (rows.length === 0) return 'No sessions.\n'
  // The handle (the end of the id) is what a person types: `hearth chat HANDLE`.
  const handles = handlesOf(rows.map((s) => s.id))
  const head = ['HANDLE', 'NAME', 'WORKSPACE', 'PHASE', 'ACTIVITY', 'ID']
  const body = rows.map((s) => [
    `${'  '.repeat(Math.min(s.depth, 4))}${handles.get(s.id)}`,
    clip(displayName(s), 40),
    tilde(s.workspace),
    s.status.phase,
    ago(s.activity_at, now),
    s.id,
  ])
  return table(head, body)
}

// ---- hearth session … -----------------------------------------------------------------

export async function sessionCommand(args: string[], out: Out, help: string): Promise<number> {
  const [sub, ...rest] = args
  switch (sub) {
    case 'new':
      return newCommand(rest, out, help)
    case 'show':
      return showCommand(rest, out, help)
    case 'watch':
      return watchCommand(rest, out, help)
    case 'set':
      return (await import('./session-control.ts')).setCommand(rest, out, help)
    case '--help':
    case '-h':
      out.write(help)
      return 0
    case undefined:
      throw new UsageError('hearth session needs a command: new, show, watch or set')
    default:
      throw unknownSubcommand('session', sub, 'new, show, watch or set')
  }
}

async function newCommand(args: string[], out: Out, help: string): Promise<number> {
  const parsed = parseCommand(
    args,
    {
      workspace: { type: 'string' },
      name: { type: 'string' },
    },
    out,
    help,
  )
  if (!parsed) return 0
  const { values } = parsed
  if (!values.workspace) throw new UsageError('hearth session new needs --workspace DIR')
  if (values.name === '') throw new UsageError('--name must not be empty')
  const home = homeOf(values.home)
  const id = uuidv7()
  const session = await createSessionOnce(
    id,
    {
      kind: 'new',
      workspace: resolve(values.workspace),
      ...(values.name !== undefined && { name: values.name }),
    },
    { client: () => HearthClient.fromHome(home) },
  )
  out.write(`${session.id}\n`)
  return 0
}

async function showCommand(args: string[], out: Out, help: string): Promise<number> {
  const parsed = parseCommand(
    args,
    { json: { type: 'boolean' }, history: { type: 'boolean' } },
    out,
    help,
    true,
  )
  if (!parsed) return 0
  const { values, positionals } = parsed
  const arg = oneSessionArg(positionals, 'hearth session show')
  const client = HearthClient.fromHome(homeOf(values.home))
  const id = await resolveSessionId(client, arg)
  if (values.history) return printHistory(client, id, values.json ?? false, out)
  const { body } = await client.call('sessions.get', { params: { session_id: id }, query: { tail: 0 } })
  if (values.json) writeJson(out, body)
  else out.write(sessionText(body, Date.now()))
  return 0
}

export function sessionText(s: SessionRead, now: number): string {
  const fields: [string, string][] = [
    ['id', s.id],
    ['name', displayName(s)],
    ['workspace', s.workspace],
    ['phase', s.status.phase],
    ['profile', s.provider_profile],
    ['model', s.effort ? `${s.model} (effort ${s.effort})` : s.model],
    ['parent', s.parent_id ?? '—'],
    ['family', s.root_id === s.id ? '— (a root)' : s.root_id],
    ['created', s.created_at],
    ['activity', `${s.activity_at} (${ago(s.activity_at, now)})`],
    ['opens', String(s.preferences.opens)],
    ['pinned', s.preferences.pinned ? 'yes' : 'no'],
    ['archived', s.preferences.archived ? 'yes' : 'no'],
    ['needs reload', s.composition.needs_reload ? 'yes' : 'no'],
    ['kernel', s.kernel.state],
    ...mcpFields(s.composition.availability),
    ['history', `${s.history.high_water} entries`],
    ['cursor', `${s.cursor.generation}:${s.cursor.sequence}`],
    ...instructionFields(s.instructions),
  ]
  const width = Math.max(...fields.map(([k]) => k.length))
  return fields.map(([k, v]) => `${k.padEnd(width)}  ${v}\n`).join('')
}

/** One line per MCP server the session's kernel loaded (docs/mcp.md); none without a kernel. */
function mcpFields(availability: SessionRead['composition']['availability']): [string, string][] {
  return Object.values(availability).map((a) => {
    if (a.sign_in === 'required')
      return [
        'mcp',
        `${a.name}: needs a sign-in (run \`hearth mcp login ${a.name}\`, or set its bearerToken)`,
      ]
    const state = a.state === 'ready' ? `ready (${a.tools.length} tools)` : a.state
    return ['mcp', `${a.name}: ${state}${a.reason ? `: ${a.reason}` : ''}`]
  })
}

/** One line per instruction file, in the order a step sends them (docs/instructions.md). */
function instructionFields(files: SessionRead['instructions']): [string, string][] {
  if (files.length === 0) return [['instructions', 'none']]
  return files.map((f, i) => {
    const note =
      f.state === 'loaded'
        ? `${f.sent_bytes} bytes${f.truncated ? ` of ${f.bytes}, cut` : ''}`
        : f.state === 'off'
          ? 'off'
          : `skipped: ${f.reason}`
    return [i === 0 ? 'instructions' : '', `${tilde(f.path)} (${note})`]
  })
}

async function watchCommand(args: string[], out: Out, help: string): Promise<number> {
  const parsed = parseCommand(args, { json: { type: 'boolean' } }, out, help, true)
  if (!parsed) return 0
  const { values, positionals } = parsed
  const arg = oneSessionArg(positionals, 'hearth session watch')
  const home = homeOf(values.home)
  const id = await resolveSessionId(HearthClient.fromHome(home), arg)
  const stop = new AbortController()
  const onSignal = () => stop.abort()
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  try {
    const end = await followSession({
      client: () => HearthClient.fromHome(home),
      sessionId: id,
      signal: stop.signal,
      onFrame: (f) => {
        if (values.json) out.write(`${rawFrame(f)}\n`)
        else if (f.event === 'overflow')
          process.stderr.write('hearth: the stream fell behind; resuming from the last event\n')
        else out.write(`${frameLine(f)}\n`)
      },
      onNotice: (m) => process.stderr.write(`hearth: ${m}\n`),
    })
    if (end.reason === 'deleted') throw new CommandError(`session ${id} was deleted`)
    return 0
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
}

const short = (v: unknown, max = 60) =>
  clip(typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? 'null'), max)

function changeText(key: string, value: unknown): string {
  if (key === 'selection' && value !== null && typeof value === 'object') {
    const counts = Object.entries(value as Record<string, Record<string, unknown>>).map(
      ([map, entries]) => `${map} ${Object.keys(entries ?? {}).length}`,
    )
    return `selection (${counts.join(', ')})`
  }
  return `${key}=${short(value)}`
}

/** A short text of one frame's payload. */
function summary(event: string, data: Record<string, any>): string {
  if (data.omitted === true) return `(${data.bytes} bytes, too large for a frame; see hearth session show)`
  const p = data.payload ?? {}
  switch (event) {
    case 'snapshot': {
      const s = data.session as SessionRead
      return `${short(displayName(s))} phase=${s.status.phase} workspace=${s.workspace}`
    }
    case 'reset':
      return `${data.reason}; a fresh snapshot follows`
    case 'session.created':
      return `workspace=${p.creation?.resolved?.workspace ?? '?'}`
    case 'session.configured':
      return `revision ${p.revision}: ${Object.entries(p.changes ?? {})
        .map(([k, v]) => changeText(k, v))
        .join(', ')}`
    case 'session.visited':
      return `opens=${p.opens}`
    case 'session.workspace_moved':
      return `workspace=${p.workspace} family_revision=${p.family_revision}`
    case 'session.workspace_change_pending':
      return `workspace=${p.workspace} (${p.state})`
    case 'session.child_added':
    case 'session.child_removed':
      return `child=${p.child_id}`
    case 'session.deleted':
      return `session=${data.session_id}`
    case 'composition.changed': {
      const servers = Object.values(p.availability ?? {}) as { name: string; state: string }[]
      return servers.length === 0
        ? 'no MCP server'
        : servers.map((a) => `mcp ${a.name} ${a.state}`).join(', ')
    }
    default:
      return short(data.payload ?? data, 100)
  }
}

/** `<generation>:<sequence> <event> <summary>`; `-` for frames without an id. */
export function frameLine(f: StreamFrame): string {
  let data: Record<string, unknown>
  try {
    data = JSON.parse(f.data) as Record<string, unknown>
  } catch {
    data = {}
  }
  const text = data !== null && typeof data === 'object' ? summary(f.event, data) : ''
  return `${f.id ?? '-'} ${f.event}${text ? ` ${text}` : ''}`
}
