// A run that changes a workspace, for the tests of `hearth diff/undo/redo` and the terminal
// client's /diff, /undo, /redo: a workspace of its own with keep.txt and doomed.txt, a
// session in it, and a scripted model that writes new.txt, edits keep.txt and runs a
// command that deletes doomed.txt (the daemon's approval policy must be auto).
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { answer, callTools } from '../fakes/tool-script.ts'
import { idle, message, putInput, type Setup, waitSession } from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'

export const KEEP_BEFORE = 'one\ntwo\nthree\n'
export const KEEP_AFTER = 'one\nTWO\nthree\n'
export const DOOMED = 'goodbye\n'
export const NEW = 'fresh\n'

/** A workspace with keep.txt and doomed.txt and a session in it. */
export async function sessionInWorkspace(s: Setup): Promise<{ id: string; workspace: string }> {
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-changes-')))
  writeFileSync(join(workspace, 'keep.txt'), KEEP_BEFORE)
  writeFileSync(join(workspace, 'doomed.txt'), DOOMED)
  const id = await createSession(s.d, { kind: 'new', workspace })
  return { id, workspace }
}

/** The model's replies of a run that writes new.txt, edits keep.txt and deletes doomed.txt. */
export function enqueueChangingRun(s: Setup): void {
  s.upstream.enqueue(
    callTools({ name: 'write', arguments: { path: 'new.txt', content: NEW } }),
    callTools({ name: 'edit', arguments: { path: 'keep.txt', old_string: 'two', new_string: 'TWO' } }),
    callTools({ name: 'shell', arguments: { command: 'rm doomed.txt' } }),
    answer('Changed three files.'),
  )
}

/** Sends the changing run over HTTP and waits until its changes are recorded. */
export async function changingRun(s: Setup, id: string): Promise<string> {
  enqueueChangingRun(s)
  const r = await putInput(s.d, id, message('change the files'))
  if (r.status !== 202) throw new Error(`message: ${r.status} ${r.text()}`)
  return (await recorded(s, id)).run_id
}

/** Waits until the session is idle and its last change is a run's (the run's after snapshot is in). */
export async function recorded(s: Setup, id: string): Promise<{ run_id: string }> {
  const session = await waitSession(s.d, id, (x) => idle(x) && x.last_change?.run_id)
  return { run_id: session.last_change.run_id }
}

/** The three files as the run left them. */
export function asTheRunLeftThem(workspace: string): boolean {
  return (
    read(workspace, 'new.txt') === NEW &&
    read(workspace, 'keep.txt') === KEEP_AFTER &&
    !existsSync(join(workspace, 'doomed.txt'))
  )
}

/** The three files as they were before the run. */
export function asBeforeTheRun(workspace: string): boolean {
  return (
    !existsSync(join(workspace, 'new.txt')) &&
    read(workspace, 'keep.txt') === KEEP_BEFORE &&
    read(workspace, 'doomed.txt') === DOOMED
  )
}

export function read(workspace: string, path: string): string | undefined {
  const file = join(workspace, path)
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined
}
