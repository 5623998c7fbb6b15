// Work items (extension `work`, docs/work.md) as the CLI and the terminal client use them:
// every item of a workspace, an item named by the start of its id, a status change with the
// item's fresh validator, and the items as an indented outline. No Node builtin: the web
// page's work screen reads the items through it too.
import type { OpCaller } from '../schemas/op-call.ts'
import type { WorkItem } from '../schemas/work.ts'

export const WORK_STATUSES = ['open', 'in_progress', 'done', 'cancelled'] as const

/** Every item of the workspace, page after page, oldest first. */
export async function workItems(client: OpCaller, workspace: string): Promise<WorkItem[]> {
  const items: WorkItem[] = []
  let next: string | undefined
  do {
    const { body } = await client.call('work.list', {
      query: { workspace, limit: 200, ...(next ? { next } : {}) },
    })
    items.push(...body.items)
    next = body.next ?? undefined
  } while (next !== undefined)
  return items
}

/** The id `given` or the start of it names (any case), unique in the workspace; else a message. */
export async function resolveWorkId(
  client: OpCaller,
  workspace: string,
  given: string,
): Promise<{ id: string } | { error: string }> {
  const start = given.toLowerCase()
  const found = (await workItems(client, workspace)).filter((i) => i.id.startsWith(start))
  if (found.length === 1) return { id: found[0].id }
  if (found.length === 0) return { error: `no work item ${given} in ${workspace}` }
  return { error: `${given} names ${found.length} work items; give more of the id` }
}

/** Applies a merge patch to an item with its current ETag; the item as it is now. */
export async function changeWork(
  client: OpCaller,
  workspace: string,
  id: string,
  change: Record<string, unknown>,
): Promise<WorkItem> {
  const read = await client.call('work.get', { params: { item_id: id }, query: { workspace } })
  const { body } = await client.call('work.patch', {
    params: { item_id: id },
    query: { workspace },
    body: change as never,
    headers: { 'if-match': read.headers.get('etag') ?? '' },
  })
  return body.resource.value
}

/** The first 13 characters of an id: its time and a little more, enough to tell items apart. */
export const shortId = (id: string | null) => (id === null ? '' : id.slice(0, 13))

/** Each status's mark in an outline. */
export const WORK_MARK: Record<WorkItem['status'], string> = {
  open: '○',
  in_progress: '◐',
  done: '●',
  cancelled: '✕',
}

export interface OutlineRow {
  item: WorkItem
  depth: number
}

/**
 * The items in outline order: children under their parent (an item whose parent is gone sits
 * at the top), each list oldest first as the daemon gives them.
 */
export function outlineRows(items: readonly WorkItem[]): OutlineRow[] {
  const ids = new Set(items.map((i) => i.id))
  const children = new Map<string | null, WorkItem[]>()
  for (const item of items) {
    const parent = item.parent_id !== null && ids.has(item.parent_id) ? item.parent_id : null
    children.set(parent, [...(children.get(parent) ?? []), item])
  }
  const rows: OutlineRow[] = []
  const walk = (parent: string | null, depth: number) => {
    for (const item of children.get(parent) ?? []) {
      rows.push({ item, depth })
      walk(item.id, depth + 1)
    }
  }
  walk(null, 0)
  return rows
}

/** The items as an outline: children under their parent, each `mark id title`. */
export function workOutline(items: readonly WorkItem[], workspace: string): string {
  if (items.length === 0) return `No work items in ${workspace}.`
  const lines = outlineRows(items).map(
    ({ item, depth }) =>
      `${'  '.repeat(depth + 1)}${WORK_MARK[item.status]} ${shortId(item.id)}  ${item.title}`,
  )
  return [`Work items of ${workspace}:`, ...lines].join('\n')
}
