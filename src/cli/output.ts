// What the list and show commands write: a value as JSON (indented, as the daemon gave it),
// or a list as a table with a line of its own when it is empty.
import type { Out } from '../command-line/errors.ts'
import { table } from './table.ts'

/** Writes `value` as indented JSON and a newline. */
export function writeJson(out: Out, value: unknown): void {
  out.write(`${JSON.stringify(value, null, 2)}\n`)
}

export interface ListOutput {
  /** --json: `value` is written instead of the table. */
  json: boolean
  value: unknown
  head: readonly string[]
  /** The table's rows (made only for the table). */
  rows: () => readonly (readonly string[])[]
  /** Written instead of an empty table: what to do to get a first row. */
  empty: string
}

/** Writes a list command's answer; returns the exit code (0). */
export function writeList(out: Out, list: ListOutput): number {
  if (list.json) {
    writeJson(out, list.value)
    return 0
  }
  const rows = list.rows()
  out.write(rows.length === 0 ? list.empty : table(list.head, rows))
  return 0
}
