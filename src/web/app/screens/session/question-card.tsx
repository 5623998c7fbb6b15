// An MCP server's waiting question, answered in place: a form built from its fields (Enter
// sends it), or the page it asks the person to open (URL mode); Decline and Cancel (Esc).
// The answer is an input of kind elicitation; the daemon checks a form's content against the
// fields and its 422 puts each field's error under that field. Whichever client answers
// first decides: the card goes when elicitation.answered (or .expired) arrives.
import { useState } from 'preact/hooks'
import type { Static } from 'typebox'
import type { ElicitationField } from '../../../../schemas/elicitation.ts'
import { type ApiClient, ProblemError } from '../../api/client.ts'
import { uuidv7 } from '../../api/ids.ts'
import { problemText } from '../../ui/problem-text.ts'
import type { Question } from './session-store.ts'

type Field = Static<typeof ElicitationField>
type Value = string | number | boolean | string[]
type Action = 'accept' | 'decline' | 'cancel'

/** A page the card offers to open: https anywhere, http only on this machine. */
export function openableUrl(url: string | null): URL | null {
  if (!url) return null
  try {
    const u = new URL(url)
    if (u.protocol === 'https:') return u
    const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname)
    return u.protocol === 'http:' && loopback ? u : null
  } catch {
    return null
  }
}

function initialValues(fields: Field[]): Record<string, Value> {
  const values: Record<string, Value> = {}
  for (const f of fields) {
    if (f.type === 'boolean') values[f.name] = f.default === true
    else if (f.type === 'array') values[f.name] = Array.isArray(f.default) ? f.default : []
    else values[f.name] = f.default === null || Array.isArray(f.default) ? '' : String(f.default)
  }
  return values
}

/** The content sent: typed as the fields say; an empty text or number is left out. */
function contentOf(fields: Field[], values: Record<string, Value>): Record<string, Value> {
  const content: Record<string, Value> = {}
  for (const f of fields) {
    const v = values[f.name]
    if (typeof v === 'string') {
      if (v.trim() === '') continue
      content[f.name] = f.type === 'number' || f.type === 'integer' ? Number(v) : v
    } else content[f.name] = v
  }
  return content
}

const INPUT_TYPE: Record<string, 'email' | 'url' | 'date' | 'text'> = {
  email: 'email',
  uri: 'url',
  date: 'date',
  'date-time': 'text',
}

function FieldInput(props: { field: Field; value: Value; onChange: (v: Value) => void }) {
  const { field: f, value, onChange } = props
  const text = (e: Event) => onChange((e.target as HTMLInputElement).value)
  if (f.type === 'boolean')
    return (
      <input
        type="checkbox"
        id={`field-${f.name}`}
        name={f.name}
        checked={value === true}
        onChange={(e) => onChange((e.target as HTMLInputElement).checked)}
      />
    )
  if (f.type === 'array')
    return (
      <span class="choices" id={`field-${f.name}`}>
        {(f.options ?? []).map((o) => (
          <label key={o.value}>
            <input
              type="checkbox"
              name={f.name}
              value={o.value}
              checked={(value as string[]).includes(o.value)}
              onChange={(e) => {
                const others = (value as string[]).filter((x) => x !== o.value)
                onChange((e.target as HTMLInputElement).checked ? [...others, o.value] : others)
              }}
            />{' '}
            {o.title}
          </label>
        ))}
      </span>
    )
  if (f.options)
    return (
      <select id={`field-${f.name}`} name={f.name} value={value as string} onChange={text}>
        {f.required && value !== '' ? null : <option value="">—</option>}
        {f.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.title}
          </option>
        ))}
      </select>
    )
  const numeric = f.type === 'number' || f.type === 'integer'
  return (
    <input
      // preact types an input's attributes by a literal `type`; every computed one here takes them all.
      type={(numeric ? 'number' : (INPUT_TYPE[f.format ?? ''] ?? 'text')) as 'text'}
      id={`field-${f.name}`}
      name={f.name}
      value={value as string}
      onInput={text}
      required={f.required}
      min={f.minimum ?? undefined}
      max={f.maximum ?? undefined}
      step={f.type === 'integer' ? 1 : numeric ? 'any' : undefined}
      minLength={f.min_length ?? undefined}
      maxLength={f.max_length ?? undefined}
      autocomplete="off"
    />
  )
}

/** `2–40 characters`, `0 to 150`, `at most 2`: what the field allows, as a hint under it. */
function limits(f: Field): string {
  const notes: string[] = []
  if (f.min_length !== null || f.max_length !== null)
    notes.push(`${f.min_length ?? 0}–${f.max_length ?? '…'} characters`)
  if (f.minimum !== null || f.maximum !== null) notes.push(`${f.minimum ?? '…'} to ${f.maximum ?? '…'}`)
  if (f.min_items !== null) notes.push(`at least ${f.min_items}`)
  if (f.max_items !== null) notes.push(`at most ${f.max_items}`)
  if (f.format) notes.push(f.format)
  return notes.join(', ')
}

function fieldErrorsOf(err: unknown): Record<string, string> {
  if (!(err instanceof ProblemError) || err.code !== 'elicitation_content_invalid') return {}
  const list = (err.problem as { errors?: Array<{ field: string; message: string }> }).errors ?? []
  return Object.fromEntries(list.map((e) => [e.field, e.message]))
}

interface CardProps {
  question: Question
  sessionId: string
  client: ApiClient
}

/** The waiting question's card, or nothing; a new question starts with a new form. */
export function QuestionCard(props: Omit<CardProps, 'question'> & { question: Question | undefined }) {
  const { question } = props
  return question ? <QuestionForm key={question.request_id} {...props} question={question} /> : null
}

function QuestionForm(props: CardProps) {
  const { question: q } = props
  const fields = q.fields ?? []
  const [values, setValues] = useState(() => initialValues(fields))
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({})
  const [error, setError] = useState<string>()
  const [sending, setSending] = useState(false)
  const answer = async (action: Action, content?: Record<string, Value>) => {
    setSending(true)
    setError(undefined)
    setFieldErrors({})
    try {
      await props.client.call('inputs.put', {
        params: { session_id: props.sessionId, input_id: uuidv7() },
        body: {
          kind: 'elicitation',
          request_id: q.request_id,
          action,
          client_id: 'web',
          ...(content ? { content } : {}),
        },
      })
    } catch (err) {
      // elicitation_not_pending: answered elsewhere or expired; the stream closes the card.
      setFieldErrors(fieldErrorsOf(err))
      setError(problemText(err))
    } finally {
      setSending(false)
    }
  }
  const onKey = (e: KeyboardEvent) => {
    if (e.key !== 'Escape') return
    e.preventDefault()
    void answer('cancel')
  }
  const page = q.mode === 'url' ? openableUrl(q.url) : null
  return (
    <section class="question" aria-label="question" onKeyDown={onKey} data-request={q.request_id}>
      <h3>
        MCP server <strong class="server">{q.server}</strong> asks:
      </h3>
      <blockquote class="server-words">{q.message}</blockquote>
      {q.mode === 'form' ? (
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault()
            void answer('accept', contentOf(fields, values))
          }}
        >
          {fields.map((f) => (
            <div class="question-field" key={f.name} data-field={f.name}>
              <div class="field-row">
                <label class="field-title" for={`field-${f.name}`}>
                  {f.title ?? f.name}
                  {f.required ? <span class="required"> *</span> : null}
                </label>
                <FieldInput
                  field={f}
                  value={values[f.name]}
                  onChange={(v) => setValues((vs) => ({ ...vs, [f.name]: v }))}
                />
              </div>
              {f.description ? <div class="note">{f.description}</div> : null}
              {limits(f) ? <div class="note">{limits(f)}</div> : null}
              {fieldErrors[f.name] ? <div class="error-text field-error">{fieldErrors[f.name]}</div> : null}
            </div>
          ))}
          <Buttons sending={sending} onAnswer={(a) => void answer(a)} submit="Send" />
        </form>
      ) : (
        <>
          {page ? (
            <p class="question-url">
              <code>{page.href}</code>
            </p>
          ) : (
            <p class="error-text">The server asks to open an address that is not a web page: {q.url}</p>
          )}
          <Buttons
            sending={sending}
            onAnswer={(a) => void answer(a)}
            open={
              page
                ? () => {
                    window.open(page.href, '_blank', 'noopener,noreferrer')
                    void answer('accept')
                  }
                : undefined
            }
          />
        </>
      )}
      {error ? <p class="error-text">{error}</p> : null}
    </section>
  )
}

function Buttons(props: {
  sending: boolean
  onAnswer: (a: Action) => void
  submit?: string
  open?: () => void
}) {
  return (
    <div class="buttons">
      {props.submit ? (
        <button type="submit" disabled={props.sending}>
          {props.submit} <kbd>Enter</kbd>
        </button>
      ) : null}
      {props.open ? (
        <button type="button" class="open" disabled={props.sending} onClick={props.open}>
          Open
        </button>
      ) : null}
      <button type="button" class="deny" disabled={props.sending} onClick={() => props.onAnswer('decline')}>
        Decline
      </button>
      <button type="button" disabled={props.sending} onClick={() => props.onAnswer('cancel')}>
        Cancel <kbd>Esc</kbd>
      </button>
    </div>
  )
}
