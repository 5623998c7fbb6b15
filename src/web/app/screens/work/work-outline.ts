// Work items as an outline: children under their parent (an item whose parent is gone sits at
// the top), each list oldest first as the daemon gives them.
import type { WorkItem } from '../../../../schemas/work.ts'

export interface OutlineRow {
  item: WorkItem
  depth: number
}

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

export const MARK: Record<WorkItem['status'], string> = {
  open: '○',
  in_progress: '◐',
  done: '●',
  cancelled: '✕',
}
export const STATUSES = ['open', 'in_progress', 'done', 'cancelled'] as const
