// The named entries of a group (the profiles, the MCP servers, a server's environment): one
// added under a new name as JSON (an object for a profile, a string for a variable), as the
// group's schema takes it (the daemon says what is
// wrong with it, field by field, when it is saved), and an existing one removed (null in the
// merge patch). Both wait in the draft until Save, like every other edit.
import { useState } from 'preact/hooks'
import { type Draft, type Path, withEdit, withoutEdit, withRemoval } from './settings-draft.ts'

/**
 * Whether an object read from a group is a map of named entries: every value a plain object
 * (not a saved secret), or nothing yet. A fixed set of fields holds scalars beside them.
 */
export function isEntryMap(value: Record<string, unknown>, isSecret: (v: unknown) => boolean): boolean {
  return Object.values(value).every(
    (v) => typeof v === 'object' && v !== null && !Array.isArray(v) && !isSecret(v),
  )
}

interface EntriesProps {
  path: Path
  names: string[]
  draft: Draft
  onDraft: (d: Draft) => void
}

/** The entries added in the draft under this map, by name. */
function added(path: Path, names: string[], draft: Draft): [string, unknown][] {
  const out: [string, unknown][] = []
  for (const [key, value] of draft) {
    const p = JSON.parse(key) as string[]
    if (p.length !== path.length + 1 || !path.every((s, i) => p[i] === s)) continue
    const name = p[p.length - 1]
    if (!names.includes(name) && value !== null) out.push([name, value])
  }
  return out
}

/** An entry to be added, shown as the JSON it will send; Undo drops it from the draft. */
function AddedEntry({ path, name, value, draft, onDraft }: EntriesProps & { name: string; value: unknown }) {
  return (
    <div class="field edited entry-added" data-field={[...path, name].join('.')}>
      <span class="field-name">{name}</span>
      <span class="badge">to be added</span>
      <pre class="entry-json">{JSON.stringify(value, null, 2)}</pre>
      <button type="button" class="link-button" onClick={() => onDraft(withoutEdit(draft, [...path, name]))}>
        Undo
      </button>
    </div>
  )
}

/** Adds an entry: its name and its value as JSON. */
function AddEntry({ path, names, draft, onDraft }: EntriesProps) {
  const [name, setName] = useState('')
  const [text, setText] = useState('{\n  \n}')
  const [error, setError] = useState<string>()
  const where = path.join('.')
  const add = () => {
    const trimmed = name.trim()
    if (trimmed === '') return setError('Name the entry.')
    if (names.includes(trimmed)) return setError(`${where} already has ${trimmed}.`)
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (err) {
      return setError(`Not JSON: ${(err as Error).message}`)
    }
    if (value === null) return setError('A new entry has a value: null would remove it.')
    setError(undefined)
    setName('')
    setText('{\n  \n}')
    onDraft(withEdit(draft, [...path, trimmed], value))
  }
  return (
    <div class="add-entry" data-add={where}>
      <input
        aria-label={`name of a new entry of ${where}`}
        placeholder={`new entry of ${path[path.length - 1]}`}
        value={name}
        onInput={(e) => setName((e.target as HTMLInputElement).value)}
      />
      <textarea
        aria-label={`the new entry of ${where}, as JSON`}
        rows={4}
        value={text}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
      />
      <button type="button" onClick={add}>
        Add to {path[path.length - 1]}
      </button>
      {error ? <span class="error-text">{error}</span> : null}
    </div>
  )
}

/** The entries waiting to be added, and the form that adds one. */
export function EntryAdditions(props: EntriesProps) {
  return (
    <>
      {added(props.path, props.names, props.draft).map(([name, value]) => (
        <AddedEntry key={name} {...props} name={name} value={value} />
      ))}
      <AddEntry {...props} />
    </>
  )
}

/** Remove (or, once marked, Keep) for one existing entry. */
export function RemoveEntry({
  path,
  draft,
  onDraft,
}: {
  path: Path
  draft: Draft
  onDraft: (d: Draft) => void
}) {
  const marked = draft.get(JSON.stringify(path)) === null
  return marked ? (
    <span class="entry-removal">
      <span class="badge">to be removed</span>
      <button type="button" class="link-button" onClick={() => onDraft(withoutEdit(draft, path))}>
        Keep
      </button>
    </span>
  ) : (
    <button
      type="button"
      class="link-button remove-entry"
      aria-label={`remove ${path.join('.')}`}
      onClick={() => onDraft(withRemoval(draft, path))}
    >
      Remove
    </button>
  )
}
