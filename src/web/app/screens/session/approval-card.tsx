// A waiting approval, answered in place: allow once, allow always (saying what "always"
// covers), or deny. The answer is an input of kind approval; whichever client answers first
// decides, and the card goes when approval.decided arrives.
import { useState } from 'preact/hooks'
import { type ApiClient, ProblemError } from '../../api/client.ts'
import { uuidv7 } from '../../api/ids.ts'
import { alwaysCovers } from '../../api/shared-views.ts'
import { ToolArguments } from '../../ui/tool-arguments.tsx'
import type { ApprovalAsk } from './session-store.ts'

type Answer = { decision: 'allow' | 'deny'; remember: 'once' | 'session' }

export function ApprovalCard(props: { ask: ApprovalAsk; sessionId: string; client: ApiClient }) {
  const { ask } = props
  const [error, setError] = useState<string>()
  const [sending, setSending] = useState(false)
  const answer = async (a: Answer) => {
    setSending(true)
    setError(undefined)
    try {
      await props.client.call('inputs.put', {
        params: { session_id: props.sessionId, input_id: uuidv7() },
        body: { kind: 'approval', request_id: ask.request_id, ...a, client_id: 'web' },
      })
    } catch (err) {
      // approval_not_pending: another client answered first; the stream says how.
      setError(err instanceof ProblemError ? err.problem.detail : String(err))
    } finally {
      setSending(false)
    }
  }
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'y') void answer({ decision: 'allow', remember: 'once' })
    else if (e.key === 'a') void answer({ decision: 'allow', remember: 'session' })
    else if (e.key === 'n') void answer({ decision: 'deny', remember: 'once' })
  }
  return (
    <section class="approval" aria-label="approval" onKeyDown={onKey} data-request={ask.request_id}>
      <h3>
        Approve <span class={`effect effect-${ask.effect}`}>{ask.effect}</span> {ask.summary || ask.tool}?
      </h3>
      <ToolArguments tool={ask.tool} text={ask.arguments} />
      <div class="buttons">
        <button
          type="button"
          disabled={sending}
          onClick={() => answer({ decision: 'allow', remember: 'once' })}
        >
          Allow once <kbd>y</kbd>
        </button>
        <button
          type="button"
          disabled={sending}
          title={`Always allows ${alwaysCovers(ask)}`}
          onClick={() => answer({ decision: 'allow', remember: 'session' })}
        >
          Allow always <kbd>a</kbd>
        </button>
        <button
          type="button"
          class="deny"
          disabled={sending}
          onClick={() => answer({ decision: 'deny', remember: 'once' })}
        >
          Deny <kbd>n</kbd>
        </button>
      </div>
      <p class="note">“Always” allows {alwaysCovers(ask)}.</p>
      {error ? <p class="error-text">{error}</p> : null}
    </section>
  )
}
