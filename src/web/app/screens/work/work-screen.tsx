// Work items (extension `work`, docs/work.md): a workspace's items as an outline, children
// under their parent, with their status (changed in place under the item's ETag), notes
// shown on demand, and a box to add an item (at the top, or under the chosen one). The
// workspace is one of the sessions' recent workspaces (GET /workspaces) or typed in.
import { useEffect, useState } from 'preact/hooks'
import type { WorkItem } from '../../../../schemas/work.ts'
import type { ApiClient } from '../../api/client.ts'
import { outlineRows, WORK_MARK, WORK_STATUSES, workItems } from '../../api/shared-views.ts'
import { navigate } from '../../router.ts'
import { problemText } from '../../ui/problem-text.ts'
import { useRecentWorkspaces, WorkspaceInput } from '../../ui/workspace-input.tsx'

function WorkspacePicker({ client, workspace }: { client: ApiClient; workspace: string | undefined }) {
  const [typed, setTyped] = useState(workspace ?? '')
  const recent = useRecentWorkspaces(client, true, (paths) => {
    if (!workspace && paths[0]) navigate(`/work?w=${encodeURIComponent(paths[0])}`)
  })
  const go = (w: string) => navigate(`/work?w=${encodeURIComponent(w)}`)
  return (
    <form
      class="workspace-picker"
      onSubmit={(e) => {
        e.preventDefault()
        if (typed.trim()) go(typed.trim())
      }}
    >
      <WorkspaceInput
        list="recent-workspaces"
        label="workspace"
        placeholder="/absolute/path/of/a/workspace"
        value={typed}
        recent={recent}
        onInput={setTyped}
      />
      <button type="submit">Show</button>
    </form>
  )
}

function ItemRow(props: {
  item: WorkItem
  depth: number
  chosen: boolean
  onChoose: () => void
  onStatus: (s: WorkItem['status']) => void
}) {
  const { item } = props
  const [open, setOpen] = useState(false)
  return (
    <li
      class={`work-item status-${item.status}${props.chosen ? ' selected' : ''}`}
      data-id={item.id}
      data-depth={props.depth}
      style={{ '--depth': props.depth }}
    >
      <div class="work-line">
        <span class="mark" title={item.status}>
          {WORK_MARK[item.status]}
        </span>
        <button
          type="button"
          class="link-button work-title"
          onClick={props.onChoose}
          aria-pressed={props.chosen}
        >
          {item.title}
        </button>
        <select
          aria-label={`status of ${item.title}`}
          value={item.status}
          onChange={(e) => props.onStatus((e.target as HTMLSelectElement).value as WorkItem['status'])}
        >
          {WORK_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s.replace('_', ' ')}
            </option>
          ))}
        </select>
        {item.notes ? (
          <button type="button" class="link-button" onClick={() => setOpen(!open)} aria-expanded={open}>
            notes
          </button>
        ) : null}
      </div>
      {open ? <pre class="work-notes">{item.notes}</pre> : null}
    </li>
  )
}

export function WorkScreen({ client, workspace }: { client: ApiClient; workspace: string | undefined }) {
  const [items, setItems] = useState<WorkItem[]>()
  const [error, setError] = useState<string>()
  const [chosen, setChosen] = useState<string | null>(null)
  const [title, setTitle] = useState('')
  const read = () =>
    workspace
      ? workItems(client, workspace).then(
          (x) => {
            setItems(x)
            setError(undefined)
          },
          (err) => setError(problemText(err)),
        )
      : undefined
  useEffect(() => void read(), [workspace])
  if (!workspace)
    return (
      <main class="screen work-screen">
        <h2>Work items</h2>
        <WorkspacePicker client={client} workspace={workspace} />
      </main>
    )
  const setStatus = async (id: string, status: WorkItem['status']) => {
    try {
      const cur = await client.call('work.get', { params: { item_id: id }, query: { workspace } })
      await client.call('work.patch', {
        params: { item_id: id },
        query: { workspace },
        body: { status },
        headers: { 'if-match': cur.headers.get('etag') ?? '' },
      })
    } catch (err) {
      setError(problemText(err))
    }
    await read()
  }
  const add = async (e: Event) => {
    e.preventDefault()
    try {
      await client.call('work.create', {
        query: { workspace },
        body: { title: title.trim(), ...(chosen ? { parent_id: chosen } : {}) },
      })
      setTitle('')
      await read()
    } catch (err) {
      setError(problemText(err))
    }
  }
  const rows = outlineRows(items ?? [])
  const parent = items?.find((i) => i.id === chosen)
  return (
    <main class="screen work-screen" data-loaded={items ? 'true' : undefined}>
      <h2>Work items</h2>
      <WorkspacePicker client={client} workspace={workspace} />
      {error ? <p class="error-text">{error}</p> : null}
      {items?.length === 0 ? <p class="note">No work items in {workspace}.</p> : null}
      <ul class="work-outline">
        {rows.map((r) => (
          <ItemRow
            key={r.item.id}
            item={r.item}
            depth={r.depth}
            chosen={r.item.id === chosen}
            onChoose={() => setChosen(chosen === r.item.id ? null : r.item.id)}
            onStatus={(s) => void setStatus(r.item.id, s)}
          />
        ))}
      </ul>
      <form class="work-add" onSubmit={add}>
        <input
          aria-label="new work item"
          placeholder={parent ? `A new item under “${parent.title}”` : 'A new work item'}
          value={title}
          onInput={(e) => setTitle((e.target as HTMLInputElement).value)}
        />
        <button type="submit" disabled={title.trim() === ''}>
          Add
        </button>
      </form>
    </main>
  )
}
