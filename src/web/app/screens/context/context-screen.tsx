// A session's prepared context (GET /sessions/{id}/context): where the model's window goes,
// as a bar of blocks drawn with plain elements (each section, the history's and the
// instructions' parts, the free rest, the automatic compaction's threshold), with a table of
// the same figures below for reading and for screen readers.
import { useEffect, useState } from 'preact/hooks'
import type { ApiClient } from '../../api/client.ts'
import { problemText } from '../../ui/problem-text.ts'
import { type Block, blocksOf, type Summary } from './context-picture.ts'

const n = (v: number) => v.toLocaleString('en-US')

function Bar({ blocks, threshold }: { blocks: Block[]; threshold: number | undefined }) {
  return (
    <div class="context-bar" aria-hidden="true">
      {blocks.map((b, i) => (
        <div
          key={b.id}
          class={`context-block block-${b.kind} hue-${b.kind === 'free' ? 'free' : i % 8}`}
          data-block={b.id}
          style={{ flexBasis: `${b.percent}%` }}
          title={`${b.label}: ${n(b.tokens)} tokens (${b.percent.toFixed(1)}%)`}
        />
      ))}
      {threshold !== undefined ? (
        <div
          class="context-threshold"
          style={{ left: `${threshold}%` }}
          title={`compaction at ${threshold}%`}
        />
      ) : null}
    </div>
  )
}

function Legend({ blocks }: { blocks: Block[] }) {
  return (
    <table class="context-table">
      <thead>
        <tr>
          <th>part</th>
          <th>tokens</th>
          <th>share</th>
        </tr>
      </thead>
      <tbody>
        {blocks.map((b, i) => (
          <tr key={b.id} data-row={b.id}>
            <td>
              <span class={`swatch hue-${b.kind === 'free' ? 'free' : i % 8}`} /> {b.label}
            </td>
            <td class="num">{n(b.tokens)}</td>
            <td class="num">{b.percent.toFixed(1)}%</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

export function ContextScreen({ client, sessionId }: { client: ApiClient; sessionId: string }) {
  const [summary, setSummary] = useState<Summary>()
  const [error, setError] = useState<string>()
  useEffect(() => {
    client.call('sessions.context', { params: { session_id: sessionId }, query: {} }).then(
      (r) => setSummary(r.body as Summary),
      (err) => setError(problemText(err)),
    )
  }, [sessionId])
  if (error)
    return (
      <main class="screen context-screen">
        <p class="error-text">{error}</p>
      </main>
    )
  if (!summary)
    return (
      <main class="screen context-screen">
        <p class="note">Reading the context…</p>
      </main>
    )
  const { blocks } = blocksOf(summary)
  const k = summary.compaction
  const h = summary.history
  return (
    <main class="screen context-screen" data-loaded="true">
      <header class="screen-head">
        <a href={`#/s/${sessionId}`} class="back" aria-label="back to the session">
          ←
        </a>
        <h2>Context</h2>
      </header>
      <p>
        {summary.model} on {summary.provider_profile}:{' '}
        <strong class="estimate">~{n(summary.estimated_tokens)} tokens</strong>
        {summary.window_tokens
          ? ` of a ${n(summary.window_tokens)}-token window (${summary.percent_of_window}%)`
          : ' (window unknown)'}
      </p>
      <Bar blocks={blocks} threshold={k.auto && summary.window_tokens ? k.threshold_percent : undefined} />
      <Legend blocks={blocks} />
      <p class="note">
        History:{' '}
        {h.from_position !== null
          ? `entries ${h.from_position}–${h.to_position} verbatim (${h.turns} turns)`
          : 'no turns yet'}
        {h.compacted_through !== null ? `; ${h.compacted_turns} earlier turns compacted` : ''}. Tools:{' '}
        {summary.tools.length}. Compaction:{' '}
        {k.auto ? `automatic at ${k.threshold_percent}%` : 'automatic off'}, {k.strategy} keeping{' '}
        {k.keep_turns} turns{k.would_compact ? '; the next request will be compacted first' : ''}.
      </p>
    </main>
  )
}
