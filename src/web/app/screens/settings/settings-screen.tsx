// Settings: each group read with its ETag and changed with a merge patch under If-Match. When
// the group changed elsewhere meanwhile (412 precondition_failed) the edits stay, and
// "Reload and retry" reads the group again and sends the same edits under the new ETag: a
// write is never lost, and never silently overwrites another's. Secrets are write-only.
import { useEffect, useState } from 'preact/hooks'
import { type ApiClient, ProblemError } from '../../api/client.ts'
import { problemText } from '../../ui/problem-text.ts'
import { StaleNotice } from '../../ui/stale-notice.tsx'
import { type Draft, patchOf } from './settings-draft.ts'
import { Fields } from './settings-fields.tsx'
import { StorageReport } from './storage-report.tsx'

interface Group {
  settings: unknown
  etag: string
}

async function readGroup(client: ApiClient, group: string): Promise<Group> {
  const r = await client.call('settings.get', { query: { group: group as never } })
  return { settings: (r.body as { settings: unknown }).settings, etag: r.headers.get('etag') ?? '' }
}

function GroupForm(props: { client: ApiClient; name: string; initial: Group; onSaved: (g: Group) => void }) {
  const { client, name, initial } = props
  const [group, setGroup] = useState(initial)
  const [draft, setDraft] = useState<Draft>(new Map())
  const [state, setState] = useState<{
    kind: 'idle' | 'saving' | 'saved' | 'stale' | 'failed'
    text?: string
  }>({
    kind: 'idle',
  })
  const send = async (etag: string) => {
    setState({ kind: 'saving' })
    try {
      const r = await client.call('settings.patch', {
        query: { group: name as never },
        body: patchOf(draft) as never,
        headers: { 'if-match': etag },
      })
      const saved = { settings: r.body.settings, etag: r.body.etag }
      setGroup(saved)
      props.onSaved(saved)
      setDraft(new Map())
      const reload = r.body.reload_sessions
      setState({ kind: 'saved', text: `Saved${reload ? `; ${reload} session(s) need a reload` : ''}.` })
    } catch (err) {
      if (err instanceof ProblemError && err.code === 'precondition_failed') setState({ kind: 'stale' })
      else setState({ kind: 'failed', text: problemText(err) })
    }
  }
  const reloadAndRetry = async () => {
    const fresh = await readGroup(client, name)
    setGroup(fresh)
    await send(fresh.etag)
  }
  return (
    <form
      class="settings-group"
      data-group={name}
      data-state={state.kind}
      onSubmit={(e) => {
        e.preventDefault()
        void send(group.etag)
      }}
    >
      <Fields path={[]} value={group.settings} draft={draft} onDraft={setDraft} />
      <div class="form-actions">
        <button type="submit" disabled={draft.size === 0 || state.kind === 'saving'}>
          Save {name}
        </button>
        <button type="button" disabled={draft.size === 0} onClick={() => setDraft(new Map())}>
          Discard edits
        </button>
        {state.text ? (
          <span class={state.kind === 'failed' ? 'error-text' : 'note'}>{state.text}</span>
        ) : null}
      </div>
      {state.kind === 'stale' ? (
        <StaleNotice what={`The ${name} settings`} onRetry={() => void reloadAndRetry()} />
      ) : null}
    </form>
  )
}

export function SettingsScreen({ client }: { client: ApiClient }) {
  const [groups, setGroups] = useState<Record<string, Group>>()
  const [chosen, setChosen] = useState<string>()
  const [error, setError] = useState<string>()
  useEffect(() => {
    client.call('settings.get').then(
      (r) => {
        const body = r.body as { settings: Record<string, unknown>; etags: Record<string, string> }
        const all = Object.fromEntries(
          Object.entries(body.settings).map(([g, s]) => [g, { settings: s, etag: body.etags[g] }]),
        )
        setGroups(all)
        setChosen(Object.keys(all)[0])
      },
      (err) => setError(problemText(err)),
    )
  }, [])
  return (
    <main class="screen settings-screen" data-loaded={groups ? 'true' : undefined}>
      <h2>Settings</h2>
      {error ? <p class="error-text">{error}</p> : null}
      {groups ? (
        <div class="tabs" role="tablist">
          {Object.keys(groups).map((g) => (
            <button
              key={g}
              type="button"
              role="tab"
              data-tab={g}
              aria-selected={g === chosen}
              onClick={() => setChosen(g)}
            >
              {g}
            </button>
          ))}
        </div>
      ) : null}
      {groups && chosen ? (
        <GroupForm
          key={chosen}
          client={client}
          name={chosen}
          initial={groups[chosen]}
          onSaved={(g) => setGroups({ ...groups, [chosen]: g })}
        />
      ) : null}
      <StorageReport client={client} />
    </main>
  )
}
