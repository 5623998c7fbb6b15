// The changes screen of /diff, /undo and /redo (docs/checkpoints.md): the files the
// session's last run that changed files changed, with status and +/- lines; Enter opens a
// file's diff (scrolled with the arrows and pages, + lines green, - lines red), Esc goes
// back. /undo adds a confirmation line: y puts the files back as they were before the run,
// n or Esc cancels; a file changed since the run stops it with the files named and
// o: overwrite. /redo lists what the session's last restore changed and asks the same way
// before undoing it. The outcome is said in the transcript when the screen closes.

import { v7 as uuidv7 } from 'uuid'
import {
  type FileChange,
  lastChangedRun,
  lastRestore,
  type Restore,
  type RestoreRequest,
  type RunChanges,
  restore,
  runChanges,
  runFileDiff,
} from '../client/changes.ts'
import {
  binaryText,
  changesHeading,
  conflictsOf,
  countsText,
  diffLines,
  noChangesText,
  pathText,
  restoredHeading,
  restoredLines,
  shownPath,
  skippedLines,
} from '../client/changes-view.ts'
import { type HearthClient, ProblemError } from '../client/client.ts'
import { keyStep } from './list-picker.ts'
import { type Component, type Focusable, matchesKey, truncateToWidth } from './pi.ts'
import type { Theme } from './theme.ts'

export type ChangesMode = 'diff' | 'undo' | 'redo'

export interface ChangesScreenOptions {
  theme: Theme
  rows: () => number
  requestRender: () => void
  close: () => void
  client: () => HearthClient
  mode: ChangesMode
  sessionId: string
  workspace: string
  /** A line in the transcript (the outcome of a restore, a cancel). */
  say: (text: string, kind?: 'info' | 'warn' | 'error') => void
}

/** One row of the list: its text and, for a run's change, the change (Enter opens its diff). */
interface Row {
  text: string
  change?: FileChange
}

/** What the screen shows below its heading. */
type View =
  | { kind: 'loading' }
  | { kind: 'empty'; text: string }
  | { kind: 'list' }
  | { kind: 'diff'; change: FileChange; lines: string[] | undefined }
  | { kind: 'restoring' }
  | { kind: 'conflict'; files: string[] }

const TAB = '    '

export class ChangesScreen implements Component, Focusable {
  focused = false
  readonly #o: ChangesScreenOptions
  #view: View = { kind: 'loading' }
  #title = ''
  #rows: Row[] = []
  #notes: string[] = []
  #selected = 0
  #scroll = 0
  #footer = ''
  /** What a restore from this screen asks for (undo and redo). */
  #request: RestoreRequest | undefined
  #changes: RunChanges | undefined

  constructor(o: ChangesScreenOptions) {
    this.#o = o
    this.#title = { diff: 'Changes', undo: 'Undo', redo: 'Redo' }[o.mode]
    void this.#load().catch((err) => this.#fail(err))
  }

  #show(view: View): void {
    this.#view = view
    this.#scroll = 0
    this.#o.requestRender()
  }

  #fail(err: unknown): void {
    this.#footer = `could not read the changes: ${(err as Error).message}`
    if (this.#view.kind === 'loading') this.#show({ kind: 'empty', text: '' })
    else this.#o.requestRender()
  }

  async #load(): Promise<void> {
    const { client, sessionId, mode } = this.#o
    if (mode === 'redo') return this.#loadRedo()
    const runId = await lastChangedRun(client(), sessionId)
    if (!runId) return this.#show({ kind: 'empty', text: 'No run of this session changed files.' })
    const changes = await runChanges(client(), sessionId, runId)
    this.#changes = changes
    if (changes.items.length === 0) return this.#show({ kind: 'empty', text: noChangesText(changes) })
    this.#title = `${this.#title} · ${changesHeading(changes)}`
    this.#rows = changes.items.map((c) => ({ text: this.#changeText(c), change: c }))
    this.#notes = skippedLines(changes, this.#o.workspace)
    if (mode === 'undo') this.#request = { run_id: runId }
    this.#show({ kind: 'list' })
  }

  async #loadRedo(): Promise<void> {
    const last = await lastRestore(this.#o.client(), this.#o.sessionId)
    if (!last) return this.#show({ kind: 'empty', text: 'This session has no restore to undo.' })
    const files = last.files.filter((f) => f.action !== 'kept')
    this.#title = `Redo · restore ${last.id}: ${files.length} file${files.length === 1 ? '' : 's'}`
    this.#rows = files.map((f) => ({
      text: `${f.action === 'deleted' ? 'removed' : 'put back'}  ${shownPath(f, this.#o.workspace)}`,
    }))
    this.#request = { restore_id: last.id }
    this.#show({ kind: 'list' })
  }

  #changeText(c: FileChange): string {
    return `${c.status.padEnd(12)} ${countsText(c).padEnd(12)} ${pathText(c, this.#o.workspace)}`
  }

  handleInput(data: string): void {
    const v = this.#view
    const back = matchesKey(data, 'escape') || matchesKey(data, 'ctrl+c')
    if (v.kind === 'restoring') return
    if (v.kind === 'diff') {
      if (back) this.#show({ kind: 'list' })
      else this.#scrollBy(data)
    } else if (v.kind === 'conflict') {
      if (data === 'o' || data === 'O') void this.#restore(true)
      else if (back || data === 'n' || data === 'N') this.#cancel()
    } else if (back) {
      if (this.#request && v.kind === 'list') this.#cancel()
      else this.#o.close()
    } else if (v.kind === 'list') this.#listKey(data)
  }

  /** A key on the list: y/n answer an undo or redo, arrows move, Enter opens a diff. */
  #listKey(data: string): void {
    const answer = data.toLowerCase()
    if (this.#request && answer === 'y') void this.#restore(false)
    else if (this.#request && answer === 'n') this.#cancel()
    else if (matchesKey(data, 'enter')) {
      const change = this.#rows[this.#selected]?.change
      if (change) void this.#openDiff(change)
    } else {
      const step = keyStep(data, this.#pageRows())
      if (step === null) return
      this.#selected = Math.max(0, Math.min(this.#rows.length - 1, this.#selected + step))
      this.#o.requestRender()
    }
  }

  #scrollBy(data: string): void {
    const step = keyStep(data, this.#pageRows())
    if (step === null) return
    this.#scroll = Math.max(0, this.#scroll + step)
    this.#o.requestRender()
  }

  #pageRows(): number {
    return Math.max(1, this.#o.rows() - 6)
  }

  async #openDiff(change: FileChange): Promise<void> {
    this.#show({ kind: 'diff', change, lines: undefined })
    const runId = this.#changes?.run_id ?? ''
    try {
      const diff = await runFileDiff(this.#o.client(), this.#o.sessionId, runId, change.path, change.root)
      const t = this.#o.theme
      const lines = diff.binary
        ? [
            t.dim(
              binaryText(
                { path: shownPath(change, this.#o.workspace) },
                change.size_before,
                change.size_after,
              ),
            ),
          ]
        : diffLines(diff.text).map((l) => {
            const text = l.text.replaceAll('\t', TAB)
            if (l.kind === 'add') return t.ok(text)
            if (l.kind === 'remove') return t.error(text)
            if (l.kind === 'hunk') return t.accent(text)
            return l.kind === 'head' ? t.bold(text) : text
          })
      if (diff.truncated) lines.push(t.dim('… (the diff is longer; cut here)'))
      if (lines.length === 0) lines.push(t.dim('(no line changed: only the mode or a link)'))
      if (this.#view.kind === 'diff' && this.#view.change === change)
        this.#show({ kind: 'diff', change, lines })
    } catch (err) {
      this.#footer = `could not read the diff: ${(err as Error).message}`
      this.#o.requestRender()
    }
  }

  #cancel(): void {
    this.#o.close()
    this.#o.say('nothing restored')
  }

  /** Sends the restore (a new id for each intent: overwrite is another one). */
  async #restore(overwrite: boolean): Promise<void> {
    if (!this.#request) return
    this.#footer = ''
    this.#show({ kind: 'restoring' })
    const request = overwrite ? { ...this.#request, overwrite: true } : this.#request
    let done: Restore
    try {
      done = await restore(this.#o.client(), this.#o.sessionId, request, uuidv7())
    } catch (err) {
      if (err instanceof ProblemError && err.code === 'restore_conflict') {
        const files = conflictsOf(err.problem).map((c) => shownPath(c, this.#o.workspace))
        this.#show({ kind: 'conflict', files })
        return
      }
      this.#footer = `not restored: ${err instanceof ProblemError ? err.problem.detail || err.problem.title : (err as Error).message}`
      this.#show({ kind: 'list' })
      return
    }
    this.#o.close()
    this.#o.say(
      [restoredHeading(done), ...restoredLines(done, this.#o.workspace).map((l) => `  ${l}`)].join('\n'),
    )
  }

  invalidate(): void {}

  render(width: number): string[] {
    const t = this.#o.theme
    const rows = Math.max(6, this.#o.rows())
    const v = this.#view
    const title = v.kind === 'diff' ? `Diff · ${pathText(v.change, this.#o.workspace)}` : this.#title
    const head = [t.bold(`${title}${v.kind === 'loading' ? ' · loading…' : ''}`), t.dim('─'.repeat(width))]
    const foot = [
      t.dim('─'.repeat(width)),
      this.#footer ? t.error(this.#footer) : this.#question(),
      t.dim(this.#hint()),
    ]
    const height = Math.max(1, rows - head.length - foot.length)
    const body = this.#body(height)
    while (body.length < height) body.push('')
    return [...head, ...body.slice(0, height), ...foot].map((l) => truncateToWidth(l, width, '…'))
  }

  /** The confirmation line of undo and redo. */
  #question(): string {
    const t = this.#o.theme
    const v = this.#view
    if (v.kind === 'conflict')
      return t.warn('Changed since, and would be lost. o: overwrite · n or Esc: cancel')
    if (v.kind === 'restoring') return t.dim('restoring…')
    if (v.kind !== 'list' || !this.#request) return ''
    const n = this.#rows.length
    const what =
      this.#o.mode === 'redo'
        ? 'what the last restore replaced'
        : `${n} file${n === 1 ? '' : 's'} as before the run`
    return t.warn(`Put back ${what}? y: restore · n or Esc: cancel`)
  }

  #hint(): string {
    const v = this.#view
    const leave = this.#request ? 'Esc cancel' : 'Esc back'
    if (v.kind === 'diff') return 'Up/Down/PageUp/PageDown scroll · Esc back'
    if (v.kind === 'list' && this.#o.mode !== 'redo') return `Up/Down move · Enter diff · ${leave}`
    return v.kind === 'restoring' ? '' : leave
  }

  #body(height: number): string[] {
    const t = this.#o.theme
    const v = this.#view
    if (v.kind === 'loading') return []
    if (v.kind === 'empty') return v.text ? [t.dim(v.text)] : []
    if (v.kind === 'conflict')
      return [t.warn('These files changed since the run:'), ...v.files.map((f) => `  ${f}`)]
    if (v.kind === 'diff') {
      if (!v.lines) return [t.dim('reading the diff…')]
      this.#scroll = Math.min(this.#scroll, Math.max(0, v.lines.length - height))
      return v.lines.slice(this.#scroll, this.#scroll + height)
    }
    const list = [...this.#rows.map((r) => r.text), ...this.#notes.map((n) => t.dim(n))]
    this.#selected = Math.max(0, Math.min(this.#rows.length - 1, this.#selected))
    const first = Math.max(0, Math.min(this.#selected - Math.floor(height / 2), list.length - height))
    const pick = this.#o.mode !== 'redo' && v.kind === 'list'
    return list.slice(first, first + height).map((line, i) => {
      const mine = pick && first + i === this.#selected
      return mine ? t.inverse(`› ${line}`) : `  ${line}`
    })
  }
}
