// The message box: Enter sends, Shift+Enter starts a new line. A message is an input PUT
// under an id made here, so a retry after a lost answer is the same input; a full queue
// (429 queue_full) is said as such and the text stays.
import { useRef, useState } from 'preact/hooks'
import { type ApiClient, ProblemError } from '../../api/client.ts'
import { uuidv7 } from '../../api/ids.ts'

export function Composer(props: { client: ApiClient; sessionId: string; disabled?: boolean }) {
  const [text, setText] = useState('')
  // What is in the box now: a key may come before the render that follows the last input.
  const box = useRef<HTMLTextAreaElement>(null)
  const [error, setError] = useState<string>()
  const [sending, setSending] = useState(false)
  const inputId = useRef<string | undefined>(undefined)
  const send = async () => {
    const message = box.current?.value ?? ''
    if (!message.trim() || sending) return
    inputId.current ??= uuidv7()
    setSending(true)
    setError(undefined)
    try {
      await props.client.call('inputs.put', {
        params: { session_id: props.sessionId, input_id: inputId.current },
        body: { kind: 'message', text: message, client_id: 'web' },
      })
      setText('')
      inputId.current = undefined
    } catch (err) {
      if (err instanceof ProblemError && err.code === 'queue_full') {
        setError('The session already has 32 waiting messages: send again once some have run.')
        inputId.current = undefined // the rejection is kept under that id
      } else setError(err instanceof ProblemError ? err.problem.detail : String(err))
    } finally {
      setSending(false)
    }
  }
  return (
    <form
      class="composer"
      onSubmit={(e) => {
        e.preventDefault()
        void send()
      }}
    >
      <textarea
        ref={box}
        aria-label="message"
        placeholder="Message (Enter sends, Shift+Enter: new line)"
        value={text}
        rows={3}
        disabled={props.disabled}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
            e.preventDefault()
            void send()
          }
        }}
      />
      <button type="submit" disabled={sending || props.disabled || !text.trim()}>
        Send
      </button>
      {error ? (
        <p class="error-text" role="alert">
          {error}
        </p>
      ) : null}
    </form>
  )
}
