// A session's configuration (GET /sessions/{id}?view=configuration) changed under its ETag:
// name, provider profile, model, effort and approval policy commit together; a workspace move
// is a change of its own carrying the family revision (it moves the whole subtree; busy
// members follow once idle). When the session changed meanwhile (412 precondition_failed) the
// edits stay and "Reload and retry" sends them again on the fresh configuration.
import { useEffect, useState } from 'preact/hooks'
import type { Static } from 'typebox'
import type { ConfigurationResource } from '../../../../schemas/session-configuration.ts'
import { type ApiClient, ProblemError } from '../../api/client.ts'
import { problemText } from '../../ui/problem-text.ts'
import { StaleNotice } from '../../ui/stale-notice.tsx'

type Resource = Static<typeof ConfigurationResource>
type Value = Resource['value']
const EFFORTS = ['minimal', 'low', 'medium', 'high', 'xhigh']
const POLICIES = ['read-only', 'ask', 'auto']

type Edits = Partial<Pick<Value, 'name' | 'provider_profile' | 'model' | 'effort' | 'approval_policy'>>

async function readConfiguration(client: ApiClient, sessionId: string): Promise<Resource> {
  const r = await client.call('sessions.get', {
    params: { session_id: sessionId },
    query: { view: 'configuration' },
  })
  return r.body as unknown as Resource
}

async function profileNames(client: ApiClient): Promise<string[]> {
  const r = await client.call('settings.get', { query: { group: 'providers' } })
  const providers = (r.body as { settings: { profiles?: Record<string, unknown> } }).settings
  return Object.keys(providers.profiles ?? {})
}

function Select(props: { label: string; value: string; options: string[]; onChange: (v: string) => void }) {
  return (
    <label class="field">
      <span class="field-name">{props.label}</span>
      <select
        aria-label={props.label}
        value={props.value}
        onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}
      >
        {props.options.map((o) => (
          <option key={o} value={o}>
            {o || 'as the settings say'}
          </option>
        ))}
      </select>
    </label>
  )
}

function Text(props: { label: string; value: string; onChange: (v: string) => void }) {
  return (
    <label class="field">
      <span class="field-name">{props.label}</span>
      <input
        aria-label={props.label}
        value={props.value}
        onInput={(e) => props.onChange((e.target as HTMLInputElement).value)}
      />
    </label>
  )
}

export function ConfigurationPanel({ client, sessionId }: { client: ApiClient; sessionId: string }) {
  const [open, setOpen] = useState(false)
  const [resource, setResource] = useState<Resource>()
  const [profiles, setProfiles] = useState<string[]>([])
  const [edits, setEdits] = useState<Edits>({})
  const [workspace, setWorkspace] = useState('')
  const [state, setState] = useState<{
    kind: 'idle' | 'saving' | 'saved' | 'stale' | 'failed'
    text?: string
  }>({ kind: 'idle' })
  useEffect(() => {
    if (!open) return
    readConfiguration(client, sessionId).then(setResource, (err) =>
      setState({ kind: 'failed', text: problemText(err) }),
    )
    profileNames(client).then(setProfiles, () => setProfiles([]))
  }, [open, sessionId])
  if (!open)
    return (
      <button type="button" class="configure-open" onClick={() => setOpen(true)}>
        Configure
      </button>
    )
  const v = resource?.value
  const shown = { ...v, ...edits } as Value
  const send = async (patch: Record<string, unknown>, etag: string) => {
    setState({ kind: 'saving' })
    try {
      const r = await client.call('sessions.configure', {
        params: { session_id: sessionId },
        query: { view: 'configuration' },
        body: patch as never,
        headers: { 'if-match': etag },
      })
      setResource(r.body.resource as Resource)
      setEdits({})
      setWorkspace('')
      setState({ kind: 'saved', text: 'Saved.' })
    } catch (err) {
      if (err instanceof ProblemError && err.code === 'precondition_failed') setState({ kind: 'stale' })
      else setState({ kind: 'failed', text: problemText(err) })
    }
  }
  const pending = (fresh: Value): Record<string, unknown> =>
    workspace.trim() ? { workspace: workspace.trim(), family_revision: fresh.family_revision } : edits
  const reloadAndRetry = async () => {
    const fresh = await readConfiguration(client, sessionId)
    setResource(fresh)
    await send(pending(fresh.value), fresh.etag)
  }
  const edit = (e: Edits) => setEdits({ ...edits, ...e })
  return (
    <section class="configuration-panel" data-state={state.kind} aria-label="session configuration">
      <div class="panel-head">
        <h3>Configuration</h3>
        <button type="button" class="link-button" onClick={() => setOpen(false)}>
          Close
        </button>
      </div>
      {!v ? (
        <p class="note">Reading…</p>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault()
            void send(pending(v), resource.etag)
          }}
        >
          <Text label="name" value={shown.name} onChange={(x) => edit({ name: x })} />
          <Select
            label="profile"
            value={shown.provider_profile}
            options={[...new Set([v.provider_profile, ...profiles])]}
            onChange={(x) => edit({ provider_profile: x })}
          />
          <Text label="model" value={shown.model} onChange={(x) => edit({ model: x })} />
          <Select
            label="effort"
            value={shown.effort ?? ''}
            options={['', ...EFFORTS]}
            onChange={(x) => edit({ effort: (x || null) as never })}
          />
          <Select
            label="approval policy"
            value={shown.approval_policy ?? ''}
            options={['', ...POLICIES]}
            onChange={(x) => edit({ approval_policy: (x || null) as never })}
          />
          <Text label="move workspace to" value={workspace} onChange={setWorkspace} />
          <p class="note">
            Workspace {v.workspace}
            {v.workspace_change ? ` — moving to ${v.workspace_change.workspace} once idle` : ''}. A move is
            sent on its own and moves the session's whole family.
          </p>
          <div class="form-actions">
            <button type="submit" disabled={Object.keys(edits).length === 0 && !workspace.trim()}>
              {workspace.trim() ? 'Move workspace' : 'Save'}
            </button>
            {state.text ? (
              <span class={state.kind === 'failed' ? 'error-text' : 'note'}>{state.text}</span>
            ) : null}
          </div>
          {state.kind === 'stale' ? (
            <StaleNotice what="This session's configuration" onRetry={() => void reloadAndRetry()} />
          ) : null}
        </form>
      )}
    </section>
  )
}
