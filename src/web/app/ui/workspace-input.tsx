// A workspace typed in, the sessions' recent workspaces (GET /workspaces) offered as the box's
// suggestions: the new-session form and the work screen's picker.
import { useEffect, useState } from 'preact/hooks'
import type { ApiClient } from '../api/client.ts'

/** The recent workspaces, most recently active first, read once `active`; then `onRead`. */
export function useRecentWorkspaces(
  client: ApiClient,
  active = true,
  onRead?: (paths: string[]) => void,
): string[] {
  const [recent, setRecent] = useState<string[]>([])
  useEffect(() => {
    if (!active) return
    client.call('workspaces.get', { query: {} }).then(
      (r) => {
        const paths = r.body.items.map((i) => i.path)
        setRecent(paths)
        onRead?.(paths)
      },
      () => setRecent([]),
    )
  }, [active])
  return recent
}

export function WorkspaceInput(props: {
  /** The suggestions list's id, unique on the page. */
  list: string
  label: string
  placeholder: string
  value: string
  recent: string[]
  onInput: (value: string) => void
}) {
  return (
    <>
      <input
        list={props.list}
        aria-label={props.label}
        placeholder={props.placeholder}
        value={props.value}
        onInput={(e) => props.onInput((e.target as HTMLInputElement).value)}
      />
      <datalist id={props.list}>
        {props.recent.map((w) => (
          <option key={w} value={w} />
        ))}
      </datalist>
    </>
  )
}
