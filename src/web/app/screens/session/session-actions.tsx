// Starting a session from the open one: a fork (a copy of its history), a child (under it in
// the tree) or a new one in its workspace. Each is PUT /sessions/{id} under an id the page
// makes, with If-None-Match: * (a retried click is the same request), then opened. The
// sessions screen's "New session" uses NewSessionForm with a workspace to choose.
import { useState } from 'preact/hooks'
import type { SessionCreationRequest } from '../../../../schemas/session-configuration.ts'
import type { ApiClient } from '../../api/client.ts'
import { uuidv7 } from '../../api/ids.ts'
import { navigate } from '../../router.ts'
import { problemText } from '../../ui/problem-text.ts'
import { useRecentWorkspaces, WorkspaceInput } from '../../ui/workspace-input.tsx'

export async function createSession(client: ApiClient, request: SessionCreationRequest): Promise<string> {
  const id = uuidv7()
  await client.call('sessions.create', {
    params: { session_id: id },
    body: request as never,
    headers: { 'if-none-match': '*' },
  })
  return id
}

/** The sessions a person can start from the open one, as the buttons show them. */
const STARTS = [
  { kind: 'forked', action: 'fork', label: 'Fork', title: "A new session with this one's history" },
  { kind: 'child', action: 'child', label: 'Child', title: 'A new session under this one' },
  { kind: 'new', action: 'new', label: 'New', title: 'A new session in this workspace' },
] as const

export function SessionActions({ client, sessionId }: { client: ApiClient; sessionId: string }) {
  const [error, setError] = useState<string>()
  const start = async (kind: 'forked' | 'child' | 'new') => {
    setError(undefined)
    try {
      let request: SessionCreationRequest
      if (kind === 'forked') request = { kind, source_id: sessionId }
      else if (kind === 'child') request = { kind, parent_id: sessionId }
      else {
        const r = await client.call('sessions.get', {
          params: { session_id: sessionId },
          query: { view: 'configuration' },
        })
        request = { kind, workspace: (r.body as unknown as { value: { workspace: string } }).value.workspace }
      }
      navigate(`/s/${await createSession(client, request)}`)
    } catch (err) {
      setError(problemText(err))
    }
  }
  return (
    <div class="session-actions">
      {STARTS.map((a) => (
        <button
          type="button"
          key={a.kind}
          data-action={a.action}
          title={a.title}
          onClick={() => void start(a.kind)}
        >
          {a.label}
        </button>
      ))}
      <a class="button-link" href={`#/s/${sessionId}/context`}>
        Context
      </a>
      {error ? <span class="error-text">{error}</span> : null}
    </div>
  )
}

/** "New session": a workspace (recent ones offered) and an optional name. */
export function NewSessionForm({ client }: { client: ApiClient }) {
  const [open, setOpen] = useState(false)
  const [workspace, setWorkspace] = useState('')
  const [name, setName] = useState('')
  const [error, setError] = useState<string>()
  const recent = useRecentWorkspaces(client, open, (paths) => setWorkspace((w) => w || paths[0] || ''))
  if (!open)
    return (
      <button type="button" class="new-session" onClick={() => setOpen(true)}>
        New session
      </button>
    )
  return (
    <form
      class="new-session-form"
      onSubmit={async (e) => {
        e.preventDefault()
        setError(undefined)
        try {
          const id = await createSession(client, {
            kind: 'new',
            workspace: workspace.trim(),
            ...(name.trim() ? { name: name.trim() } : {}),
          })
          setOpen(false)
          setName('')
          navigate(`/s/${id}`)
        } catch (err) {
          setError(problemText(err))
        }
      }}
    >
      <WorkspaceInput
        list="new-session-workspaces"
        label="workspace of the new session"
        placeholder="/absolute/path"
        value={workspace}
        recent={recent}
        onInput={setWorkspace}
      />
      <input
        aria-label="name of the new session"
        placeholder="name (optional)"
        value={name}
        onInput={(e) => setName((e.target as HTMLInputElement).value)}
      />
      <div class="form-actions">
        <button type="submit" disabled={workspace.trim() === ''}>
          Start
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
      {error ? <p class="error-text">{error}</p> : null}
    </form>
  )
}
