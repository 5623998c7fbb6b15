// A group's fields as a form built from the group's read: objects as nested field sets,
// booleans as check boxes, numbers and strings as inputs, lists as JSON, secrets as "saved"
// with Replace and Remove; a map of named entries (profiles, servers) takes a new entry and
// gives one up (settings-entries.tsx). An edited field is marked until it is saved.
import { useState } from 'preact/hooks'
import {
  type Draft,
  isSavedSecret,
  keyOf,
  type Path,
  textOf,
  valueFromText,
  withEdit,
  withoutEdit,
} from './settings-draft.ts'
import { EntryAdditions, isEntryMap, RemoveEntry } from './settings-entries.tsx'

interface FieldProps {
  path: Path
  value: unknown
  draft: Draft
  onDraft: (d: Draft) => void
  /** An entry of a map: it can be removed. */
  entry?: boolean
}

function Secret({ path, value, draft, onDraft }: FieldProps) {
  const key = keyOf(path)
  const [replacing, setReplacing] = useState(false)
  const edited = draft.has(key)
  const saved = isSavedSecret(value)
  const pending = draft.get(key)
  return (
    <span class="secret" data-secret={key}>
      {edited ? (
        <span class="badge">{pending === null ? 'to be removed' : 'to be replaced'}</span>
      ) : (
        <span class="note">{saved ? 'saved' : 'not set'}</span>
      )}
      {replacing ? (
        <input
          type="password"
          autocomplete="new-password"
          aria-label={`new value of ${path.join('.')}`}
          onInput={(e) => {
            const v = (e.target as HTMLInputElement).value
            onDraft(v === '' ? withoutEdit(draft, path) : withEdit(draft, path, v))
          }}
        />
      ) : (
        <button type="button" class="link-button" onClick={() => setReplacing(true)}>
          {saved ? 'Replace' : 'Set'}
        </button>
      )}
      {saved ? (
        <button type="button" class="link-button" onClick={() => onDraft(withEdit(draft, path, null))}>
          Remove
        </button>
      ) : null}
    </span>
  )
}

/** Keys whose value is a secret even while unset (null): named like one. */
const SECRET_NAME = /(api_?key|secret|token|password)$/i

function Scalar({ path, value, draft, onDraft }: FieldProps) {
  const key = keyOf(path)
  const edited = draft.has(key)
  const shown = edited ? draft.get(key) : value
  const label = path[path.length - 1]
  if (typeof value === 'boolean')
    return (
      <input
        type="checkbox"
        class="check"
        aria-label={label}
        checked={shown === true}
        onChange={(e) => {
          const v = (e.target as HTMLInputElement).checked
          onDraft(v === value ? withoutEdit(draft, path) : withEdit(draft, path, v))
        }}
      />
    )
  const long = Array.isArray(value) || (typeof value === 'string' && value.length > 80)
  const onInput = (e: Event) => {
    const text = (e.target as HTMLInputElement | HTMLTextAreaElement).value
    onDraft(
      text === textOf(value) ? withoutEdit(draft, path) : withEdit(draft, path, valueFromText(text, value)),
    )
  }
  return long ? (
    <textarea aria-label={label} rows={3} value={textOf(shown)} onInput={onInput} />
  ) : (
    <input
      inputMode={typeof value === 'number' ? 'decimal' : undefined}
      aria-label={label}
      placeholder={value === null ? 'not set' : undefined}
      value={textOf(shown)}
      onInput={onInput}
    />
  )
}

export function Fields(props: FieldProps) {
  const { path, value, draft } = props
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value)
  const name = path[path.length - 1] ?? ''
  if (isObject && !isSavedSecret(value)) {
    const object = value as Record<string, unknown>
    const entries = Object.entries(object)
    const map = path.length > 0 && isEntryMap(object, isSavedSecret)
    const removed = props.entry === true && draft.get(keyOf(path)) === null
    const inner = entries.map(([k, v]) => (
      <Fields key={k} {...props} path={[...path, k]} value={v} entry={map} />
    ))
    if (path.length === 0) return <div class="fields">{inner}</div>
    return (
      <fieldset class={`field-set${removed ? ' removed' : ''}`} data-set={path.join('.')}>
        <legend>
          {name}
          {props.entry ? <RemoveEntry path={path} draft={draft} onDraft={props.onDraft} /> : null}
        </legend>
        {removed ? null : entries.length === 0 && !map ? <span class="note">empty</span> : inner}
        {map && !removed ? (
          <EntryAdditions path={path} names={Object.keys(object)} draft={draft} onDraft={props.onDraft} />
        ) : null}
      </fieldset>
    )
  }
  const secret = isSavedSecret(value) || (value === null && SECRET_NAME.test(name))
  return (
    <div class={`field${draft.has(keyOf(path)) ? ' edited' : ''}`} data-field={path.join('.')}>
      <span class="field-name">{name}</span>
      {secret ? <Secret {...props} /> : <Scalar {...props} />}
    </div>
  )
}
