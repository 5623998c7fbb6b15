// What a failed call says to a person: the problem's detail (and code), else the error's text.
import { ProblemError } from '../api/client.ts'

export function problemText(err: unknown): string {
  if (err instanceof ProblemError) return `${err.problem.detail} (${err.code})`
  return err instanceof Error ? err.message : String(err)
}
