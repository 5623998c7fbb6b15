// `hearth work [list|add|set|done|rm]`: the work items of a workspace (extension `work`,
// docs/work.md) through a running daemon. The workspace is --workspace, else the current
// directory. An item is named by its id or by the start of it, unique in the workspace.
import { resolve } from 'node:path'
import { HearthClient } from '../client/client.ts'
import { changeWork, resolveWorkId, shortId, WORK_STATUSES, workItems } from '../client/work-view.ts'
import { homeOf, parseCommand, unknownSubcommand } from '../command-line/args.ts'
import { CommandError, type Out, UsageError } from '../command-line/errors.ts'
import { resolveSessionId } from '../command-line/session-id.ts'
import type { WorkItem } from '../schemas/work.ts'
import { writeList } from './output.ts'

const VERBS = 'list, add, set, done or rm'
const STATUSES: readonly string[] = WORK_STATUSES

type Values = Record<string, string | boolean | undefined>

export async function workCommand(args: string[], out: Out, help: string): Promise<number> {
  const parsed = parseCommand(
    args,
    {
      workspace: { type: 'string' },
      notes: { type: 'string' },
      parent: { type: 'string' },
      status: { type: 'string' },
      title: { type: 'string' },
      notify: { type: 'string' },
      json: { type: 'boolean' },
    },
    out,
    help,
    true,
  )
  if (!parsed) return 0
  const { values, positionals } = parsed
  const [verb = 'list', ...rest] = positionals
  const client = HearthClient.fromHome(homeOf(values.home))
  const workspace = resolve(values.workspace ?? process.cwd())
  const one = (usage: string) => {
    if (rest.length !== 1) throw new UsageError(usage)
    return rest[0]
  }
  switch (verb) {
    case 'list':
      if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`)
      return listItems(client, workspace, values.json ?? false, out)
    case 'add':
      return addItem(
        client,
        workspace,
        one('hearth work add TITLE [--notes TEXT] [--parent ID]'),
        values,
        out,
      )
    case 'set':
      return setItem(
        client,
        workspace,
        one('hearth work set ID [--status S] [--title T] [--notes N] [--parent ID|none]'),
        values,
        out,
      )
    case 'done':
      return setItem(client, workspace, one('hearth work done ID'), { status: 'done' }, out)
    case 'rm':
      return removeItem(client, workspace, one('hearth work rm ID [--notify SESSION]'), values, out)
    default:
      throw unknownSubcommand('work', verb, VERBS)
  }
}

/** The item an id or the start of one names; a CommandError otherwise. */
async function resolveId(client: HearthClient, workspace: string, given: string): Promise<string> {
  const found = await resolveWorkId(client, workspace, given)
  if ('error' in found) throw new CommandError(found.error)
  return found.id
}

async function listItems(client: HearthClient, workspace: string, json: boolean, out: Out) {
  const items = await workItems(client, workspace)
  return writeList(out, {
    json,
    value: items,
    head: ['ID', 'STATUS', 'PARENT', 'TITLE'],
    rows: () => items.map((i) => [shortId(i.id), i.status, shortId(i.parent_id), i.title]),
    empty: `No work items in ${workspace}. Add one with hearth work add TITLE.\n`,
  })
}

function status(value: unknown): WorkItem['status'] | undefined {
  if (value === undefined) return undefined
  if (!STATUSES.includes(String(value))) throw new UsageError(`--status is one of ${STATUSES.join(', ')}`)
  return value as WorkItem['status']
}

async function addItem(client: HearthClient, workspace: string, title: string, values: Values, out: Out) {
  const parent =
    typeof values.parent === 'string' ? await resolveId(client, workspace, values.parent) : undefined
  const { body } = await client.call('work.create', {
    query: { workspace },
    body: {
      title,
      ...(typeof values.notes === 'string' ? { notes: values.notes } : {}),
      ...(parent ? { parent_id: parent } : {}),
      ...(values.status !== undefined ? { status: status(values.status) } : {}),
    },
  })
  out.write(`${body.resource.value.id}\n`)
  return 0
}

async function setItem(client: HearthClient, workspace: string, given: string, values: Values, out: Out) {
  const id = await resolveId(client, workspace, given)
  const change: Record<string, unknown> = {}
  if (values.status !== undefined) change.status = status(values.status)
  if (typeof values.title === 'string') change.title = values.title
  if (typeof values.notes === 'string') change.notes = values.notes
  if (typeof values.parent === 'string')
    change.parent_id = values.parent === 'none' ? null : await resolveId(client, workspace, values.parent)
  if (Object.keys(change).length === 0)
    throw new UsageError('nothing to change: give --status, --title, --notes or --parent')
  const item = await changeWork(client, workspace, id, change)
  out.write(`${shortId(item.id)} ${item.status}: ${item.title}\n`)
  return 0
}

async function removeItem(client: HearthClient, workspace: string, given: string, values: Values, out: Out) {
  const id = await resolveId(client, workspace, given)
  // The session to tell, named as anywhere else (its handle, or a start or end of its id).
  const notify = typeof values.notify === 'string' ? await resolveSessionId(client, values.notify) : undefined
  const read = await client.call('work.get', { params: { item_id: id }, query: { workspace } })
  const { body } = await client.call('work.delete', {
    params: { item_id: id },
    query: { workspace, ...(notify ? { notify_session_id: notify } : {}) },
    headers: { 'if-match': read.headers.get('etag') ?? '' },
  })
  const note = body.notification
  const told =
    note.state === 'queued'
      ? ' (a note waits for the session)'
      : note.state === 'failed'
        ? ` (no note: ${note.detail})`
        : ''
  out.write(`removed ${shortId(id)}${told}\n`)
  return 0
}
