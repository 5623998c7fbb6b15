// One committed history entry. Entries never change once committed, so an entry already
// drawn is not drawn again (shouldComponentUpdate on the entry object).
import { Component } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import type { ApiClient } from '../../api/client.ts'
import { Markdown } from '../../ui/markdown.tsx'
import { ToolArguments } from '../../ui/tool-arguments.tsx'
import type { Entry } from './session-store.ts'

interface EntryProps {
  entry: Entry
  sessionId: string
  client: ApiClient
}

type Content = Record<string, any>

/** An image of an entry, read with the token and shown from a blob: address. */
function EntryImage({
  client,
  sessionId,
  entryId,
  field,
}: {
  client: ApiClient
  sessionId: string
  entryId: string
  field: string
}) {
  const [url, setUrl] = useState<string>()
  useEffect(() => {
    let made: string | undefined
    let live = true
    client
      .blob('history.image', { params: { session_id: sessionId, entry_id: entryId, field } })
      .then((b) => {
        if (!live) return
        made = URL.createObjectURL(b)
        setUrl(made)
      })
      .catch(() => {})
    return () => {
      live = false
      if (made) URL.revokeObjectURL(made)
    }
  }, [sessionId, entryId, field])
  return url ? <img class="entry-image" src={url} alt={field} /> : <span class="note">image…</span>
}

function Images({ p, c }: { p: EntryProps; c: Content }) {
  const images = (c.images ?? []) as { field: string }[]
  if (images.length === 0) return null
  return (
    <div class="images">
      {images.map((i) => (
        <EntryImage
          key={i.field}
          client={p.client}
          sessionId={p.sessionId}
          entryId={p.entry.id}
          field={i.field}
        />
      ))}
    </div>
  )
}

const OUTCOME_LABEL: Record<string, string> = {
  ok: 'ok',
  error: 'error',
  interrupted: 'interrupted',
  timeout: 'timed out',
  denied: 'denied',
}

function body(p: EntryProps) {
  const e = p.entry
  const c = e.content as Content
  switch (e.kind) {
    case 'user':
      return (
        <>
          <div class="text plain">{c.text}</div>
          <Images p={p} c={c} />
        </>
      )
    case 'assistant':
      return <Markdown text={String(c.text ?? '')} />
    case 'reasoning':
      return (
        <details class="reasoning">
          <summary>reasoning</summary>
          <div class="text plain">{c.text}</div>
        </details>
      )
    case 'tool_call':
      return (
        <div class="tool-call">
          <div class="tool-head">
            <span class={`effect effect-${c.effect}`}>{c.effect}</span> {c.summary || c.name}
          </div>
          <ToolArguments
            tool={String(c.name)}
            text={typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments)}
          />
        </div>
      )
    case 'tool_result': {
      const output = String(c.output ?? '')
      const lines = output.split('\n').length
      return (
        <details class={`tool-result outcome-${c.outcome}`}>
          <summary>
            {c.name}: {OUTCOME_LABEL[c.outcome] ?? c.outcome} · {lines} line{lines === 1 ? '' : 's'}
          </summary>
          <pre class="output">{output}</pre>
          <Images p={p} c={c} />
        </details>
      )
    }
    case 'error':
      return <div class="error-text">{c.problem?.detail ?? c.problem?.title ?? 'error'}</div>
    case 'compaction':
      return (
        <details>
          <summary>context compacted ({c.compacted_turns} turns)</summary>
          <Markdown text={String(c.text ?? '')} />
        </details>
      )
    default:
      return <div class="text plain">{String(c.text ?? JSON.stringify(c))}</div>
  }
}

export class EntryView extends Component<EntryProps> {
  shouldComponentUpdate(next: EntryProps): boolean {
    return next.entry !== this.props.entry
  }

  render() {
    const e = this.props.entry
    const truncated = (e.content as Content).truncated === true
    return (
      <article class={`entry entry-${e.kind}`} data-position={e.position} data-kind={e.kind}>
        {body(this.props)}
        {truncated ? <div class="note">(shortened: the whole text is in the history)</div> : null}
      </article>
    )
  }
}
