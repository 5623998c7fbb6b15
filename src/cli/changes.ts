// `hearth diff`, `hearth undo` and `hearth redo` (docs/checkpoints.md): what a run changed in
// the workspace, one file's diff (coloured at a terminal unless NO_COLOR), and putting the
// files back as they were before the run, or before the last restore. A restore is asked
// for on a terminal (y/N) unless --yes; without a terminal it needs --yes. One restore id
// per invocation, so a retry after a lost answer is the same restore. --json prints what
// the daemon answered.
import { createInterface } from 'node:readline'
import {
  type FileChange,
  type FileRef,
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
  changeRows,
  changesHeading,
  conflictsOf,
  diffLines,
  fileRefOf,
  findChange,
  noChangesText,
  restoredHeading,
  restoredLines,
  shownPath,
  skippedLines,
} from '../client/changes-view.ts'
import { HearthClient, ProblemError } from '../client/client.ts'
import { homeOf, parseCommand } from '../command-line/args.ts'
import { CommandError, type Out } from '../command-line/errors.ts'
import { oneSessionArg, resolveSessionId } from '../command-line/session-id.ts'
import { colourWanted, makeTheme } from '../tui/theme.ts'
import { writeJson } from './output.ts'
import { table } from './table.ts'

interface Target {
  client: HearthClient
  sessionId: string
  workspace: string
}

/** The client, the session the argument names and its workspace. */
async function target(home: string | undefined, positionals: string[], command: string): Promise<Target> {
  const arg = oneSessionArg(positionals, command)
  const client = HearthClient.fromHome(homeOf(home))
  const sessionId = await resolveSessionId(client, arg)
  const { body } = await client.call('sessions.get', {
    params: { session_id: sessionId },
    query: { tail: 0 },
  })
  return { client, sessionId, workspace: body.workspace }
}

/** The run asked for, else the session's last run that changed files. */
async function runOf(t: Target, given: string | undefined): Promise<string> {
  if (given !== undefined && given !== '') return given
  const last = await lastChangedRun(t.client, t.sessionId)
  if (!last) throw new CommandError(`no run of session ${t.sessionId} changed files`)
  return last
}

function changeTable(changes: RunChanges, workspace: string): string {
  return table(['STATUS', 'LINES', 'PATH'], changeRows(changes.items, workspace))
}

export async function diffCommand(args: string[], out: Out, help: string): Promise<number> {
  const options = { run: { type: 'string' }, file: { type: 'string' }, json: { type: 'boolean' } } as const
  const parsed = parseCommand(args, options, out, help, true)
  if (!parsed) return 0
  const { values } = parsed
  const t = await target(values.home, parsed.positionals, 'hearth diff')
  const runId = await runOf(t, values.run)
  const changes = await runChanges(t.client, t.sessionId, runId)
  if (values.file !== undefined)
    return await writeFileDiff(t, changes, values.file, values.json === true, out)
  if (values.json) {
    writeJson(out, changes)
    return 0
  }
  if (changes.items.length === 0) out.write(`${noChangesText(changes)}\n`)
  else out.write(`${changesHeading(changes)}\n${changeTable(changes, t.workspace)}`)
  for (const line of skippedLines(changes, t.workspace)) out.write(`${line}\n`)
  return 0
}

async function writeFileDiff(t: Target, changes: RunChanges, file: string, json: boolean, out: Out) {
  const change = findChange(changes.items, file, t.workspace)
  if (!change) throw new CommandError(`run ${changes.run_id} did not change ${file}`)
  const diff = await runFileDiff(t.client, t.sessionId, changes.run_id, change.path, change.root)
  if (json) {
    writeJson(out, diff)
    return 0
  }
  if (diff.binary) {
    out.write(
      `${binaryText({ path: shownPath(change, t.workspace) }, change.size_before, change.size_after)}\n`,
    )
    return 0
  }
  out.write(colouredDiff(diff.text))
  if (diff.truncated) out.write('… (the diff is longer; cut here)\n')
  return 0
}

/** The diff's lines, coloured when standard output is a terminal and colour is wanted. */
function colouredDiff(text: string): string {
  const colour = process.stdout.isTTY === true && colourWanted()
  const t = makeTheme(colour)
  const style = {
    add: t.ok,
    remove: t.error,
    hunk: t.accent,
    head: colour ? t.bold : (s: string) => s,
    text: (s: string) => s,
  }
  return diffLines(text)
    .map((l) => `${style[l.kind](l.text)}\n`)
    .join('')
}

export async function undoCommand(args: string[], out: Out, help: string): Promise<number> {
  const options = {
    run: { type: 'string' },
    file: { type: 'string', multiple: true },
    yes: { type: 'boolean', short: 'y' },
    overwrite: { type: 'boolean' },
    json: { type: 'boolean' },
  } as const
  const parsed = parseCommand(args, options, out, help, true)
  if (!parsed) return 0
  const { values } = parsed
  const t = await target(values.home, parsed.positionals, 'hearth undo')
  const runId = await runOf(t, values.run)
  const changes = await runChanges(t.client, t.sessionId, runId)
  const files = (values.file ?? []).map((f) => fileRefOf(f, changes.items, t.workspace))
  const listed = files.length === 0 ? changes.items : chosenChanges(changes.items, files)
  if (files.length === 0 && changes.items.length === 0) throw new CommandError(noChangesText(changes))
  const request: RestoreRequest = { run_id: runId }
  if (files.length > 0) request.files = files
  if (values.overwrite) request.overwrite = true
  const plan = [`put back as before run ${runId}:`, ...planLines(listed, files, t.workspace)]
  const again = `hearth undo ${t.sessionId} --run ${runId}${(values.file ?? []).map((f) => ` --file ${f}`).join('')}`
  return await confirmAndRestore(t, request, plan, values, out, again)
}

/** Whether a file named on the command line is this change (a path alone: in any root). */
const names = (f: FileRef, c: FileChange) => f.path === c.path && (f.root === undefined || f.root === c.root)

/** The changes among `items` that the files name. */
function chosenChanges(items: readonly FileChange[], files: readonly FileRef[]): FileChange[] {
  return items.filter((c) => files.some((f) => names(f, c)))
}

/** The lines that list what will be put back: the changes, and files named that the run did not change. */
function planLines(listed: readonly FileChange[], files: readonly FileRef[], workspace: string) {
  const rows = changeRows(listed, workspace).map((r) => `  ${r[0].padEnd(12)} ${r[2]}`)
  for (const f of files) {
    if (listed.some((c) => names(f, c))) continue
    const shown = f.root ? shownPath({ root: f.root, path: f.path }, workspace) : f.path
    rows.push(`  ${'unchanged'.padEnd(12)} ${shown}`)
  }
  return rows
}

export async function redoCommand(args: string[], out: Out, help: string): Promise<number> {
  const options = {
    yes: { type: 'boolean', short: 'y' },
    overwrite: { type: 'boolean' },
    json: { type: 'boolean' },
  } as const
  const parsed = parseCommand(args, options, out, help, true)
  if (!parsed) return 0
  const { values } = parsed
  const t = await target(values.home, parsed.positionals, 'hearth redo')
  const last = await lastRestore(t.client, t.sessionId)
  if (!last)
    throw new CommandError(
      `session ${t.sessionId} has no restore to undo (its last change to the files, if any, was a run's)`,
    )
  const request: RestoreRequest = { restore_id: last.id }
  if (values.overwrite) request.overwrite = true
  const plan = [
    `put back as before restore ${last.id}:`,
    ...last.files.filter((f) => f.action !== 'kept').map((f) => `  ${shownPath(f, t.workspace)}`),
  ]
  return await confirmAndRestore(t, request, plan, values, out, `hearth redo ${t.sessionId}`)
}

/**
 * Shows the plan, asks (unless --yes), restores; a conflict names the files and the option
 * that overwrites them. `again` is the command line that asks again.
 */
async function confirmAndRestore(
  t: Target,
  request: RestoreRequest,
  plan: string[],
  values: { yes?: boolean; json?: boolean },
  out: Out,
  again: string,
): Promise<number> {
  if (!values.json || !values.yes) out.write(`${plan.join('\n')}\n`)
  if (!values.yes) {
    if (!process.stdin.isTTY)
      throw new CommandError('not asking without a terminal: pass --yes to restore these files')
    if (!(await askYes('Restore these files? [y/N] ', out))) {
      out.write('nothing restored\n')
      return 1
    }
  }
  let done: Restore
  try {
    done = await restore(t.client, t.sessionId, request)
  } catch (err) {
    if (err instanceof ProblemError && err.code === 'restore_conflict') {
      const files = conflictsOf(err.problem).map((c) => `  ${shownPath(c, t.workspace)}`)
      throw new CommandError(
        `nothing restored: ${files.length === 1 ? 'this file was' : 'these files were'} changed since:\n${files.join('\n')}\n` +
          `to put them back anyway (losing those changes): ${again} --overwrite`,
      )
    }
    throw err
  }
  if (values.json) writeJson(out, done)
  else
    out.write(
      `${restoredHeading(done)}\n${restoredLines(done, t.workspace)
        .map((l) => `  ${l}\n`)
        .join('')}`,
    )
  return 0
}

/** One line from the terminal: true for y or yes (any case). */
function askYes(question: string, out: Out): Promise<boolean> {
  out.write(question)
  const rl = createInterface({ input: process.stdin, terminal: false })
  return new Promise((resolve) => {
    let answered = false
    rl.once('line', (line) => {
      answered = true
      rl.close()
      resolve(/^\s*y(es)?\s*$/i.test(line))
    })
    rl.once('close', () => {
      if (!answered) resolve(false)
    })
  })
}
