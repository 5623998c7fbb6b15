// How the CLI answers an MCP server's question (an `elicitation.requested` of its run):
// asked on the terminal (`chat`, and `send` when its terminal is free) field by field, or
// declined when nobody could be asked, so a script never hangs on a question nobody sees
// (decline, not cancel: the server learns the answer will not come, rather than that it
// might ask again). `--approve` answers approvals only, never a server's question.
import { ProblemError } from '../client/client.ts'
import {
  type Answer,
  choicesLine,
  defaultText,
  type Field,
  type FieldValue,
  fieldLabel,
  type Question,
  questionHead,
  readValue,
} from '../client/elicitation-view.ts'
import { openBrowser } from '../client/login.ts'
import type { Out } from '../command-line/errors.ts'
import type { LineQueue } from './approvals.ts'

/** Answers a server's question; `retry` holds the daemon's field errors of the last answer. */
export type Elicitor = (q: Question, retry?: Record<string, string>) => Promise<Answer>

/** A script's answer: declined at once, said on standard error. */
export const declineUnasked: Elicitor = async (q) => {
  process.stderr.write(`(declined: ${questionHead(q)}; answer it from a terminal or the API)\n`)
  return { action: 'decline' }
}

/** Asks on the terminal; end of input declines. */
export function elicitOn(lines: LineQueue, out: Out, env: NodeJS.ProcessEnv = process.env): Elicitor {
  const ask = async (prompt: string): Promise<string | undefined> => {
    out.write(prompt)
    return lines.next()
  }
  const declined = (): Answer => {
    out.write('\n(no answer: declined)\n')
    return { action: 'decline' }
  }
  return async (q, retry) => {
    out.write(`\n${questionHead(q)}\n`)
    if (q.mode === 'url') return askUrl(q, ask, out, env, declined)
    for (;;) {
      const line = await ask('Fill in the form? [y]es / [d]ecline / [c]ancel: ')
      if (line === undefined) return declined()
      const key = line.trim().toLowerCase()
      if (key === 'd') return { action: 'decline' }
      if (key === 'c') return { action: 'cancel' }
      if (key !== 'y') continue
      const content: Answer['content'] = {}
      for (const f of q.fields ?? []) {
        const value = await askField(f, ask, out, retry?.[f.name])
        if (value === null) return declined()
        if (value !== undefined) content[f.name] = value
      }
      return { action: 'accept', content }
    }
  }
}

async function askUrl(
  q: Question,
  ask: (prompt: string) => Promise<string | undefined>,
  out: Out,
  env: NodeJS.ProcessEnv,
  declined: () => Answer,
): Promise<Answer> {
  out.write(`  ${q.url}\n`)
  for (;;) {
    const line = await ask('Open it? [y]es / [n]o / [c]ancel: ')
    if (line === undefined) return declined()
    const key = line.trim().toLowerCase()
    if (key === 'y') {
      if (!openBrowser(q.url ?? '', env)) out.write('(open it yourself)\n')
      return { action: 'accept' }
    }
    if (key === 'n') return { action: 'decline' }
    if (key === 'c') return { action: 'cancel' }
  }
}

/** One field until its value reads; undefined when left empty, null at the end of input. */
async function askField(
  f: Field,
  ask: (prompt: string) => Promise<string | undefined>,
  out: Out,
  error?: string,
): Promise<FieldValue | undefined | null> {
  const choices = choicesLine(f)
  if (choices) out.write(`  ${choices}\n`)
  if (error) out.write(`  (${error})\n`)
  const fallback = defaultText(f)
  for (;;) {
    const line = await ask(`  ${fieldLabel(f)}${fallback ? ` [${fallback}]` : ''}: `)
    if (line === undefined) return null
    const r = readValue(f, line.trim() === '' ? fallback : line)
    if ('error' in r) out.write(`  (${r.error})\n`)
    else if (r.value === undefined && f.required) out.write('  (required)\n')
    else return r.value
  }
}

/**
 * Answers with an input of kind `elicitation` (`put` sends it with a fresh id); a 422 asks
 * again with its field errors, a 409 (answered elsewhere, expired) is said, not fatal.
 */
export async function answerQuestion(
  q: Question,
  elicit: Elicitor,
  put: (body: { kind: 'elicitation'; request_id: string } & Answer) => Promise<void>,
): Promise<void> {
  let retry: Record<string, string> | undefined
  for (;;) {
    const answer = await elicit(q, retry)
    try {
      await put({ kind: 'elicitation', request_id: q.request_id, ...answer })
      return
    } catch (err) {
      if (!(err instanceof ProblemError)) throw err
      const errors = (err.problem as { errors?: { field: string; message: string }[] }).errors
      if (err.status === 422 && Array.isArray(errors) && errors.length > 0) {
        retry = Object.fromEntries(errors.map((e) => [e.field, e.message]))
        continue
      }
      process.stderr.write(`(answer not recorded: ${err.problem.detail ?? err.problem.title})\n`)
      return
    }
  }
}
