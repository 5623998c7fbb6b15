// How the `hearth` command reports failures, whichever client runs it (the CLI, the terminal
// client, `hearth daemon`). Exit codes: 0 ok, 1 error, 2 usage.
import { ClientError, ProblemError } from '../client/client.ts'

/** The command line is wrong: exit 2 with a hint. */
export class UsageError extends Error {}

/** A failure with its own message and exit code 1 (no stack), like the client's own. */
export class CommandError extends ClientError {}

export type Out = { write: (s: string) => void }

/**
 * Standard output, touched only when written: creating process.stdout loads Node's stream
 * modules (~3 ms), which `hearth daemon` never needs before it is ready.
 */
export const stdout: Out = { write: (s) => process.stdout.write(s) }

/** Runs an entry's command; the exit code becomes the process's (-1: keeps running). */
export function runEntry(command: () => Promise<number>): void {
  command().then(
    (code) => {
      if (code >= 0) process.exitCode = code
    },
    (err) => {
      process.stderr.write(`hearth: ${(err as Error).stack ?? err}\n`)
      process.exitCode = 1
    },
  )
}

/** Runs a command, turning the errors it expects into their message and exit code. */
export async function reported(command: () => Promise<number>): Promise<number> {
  try {
    return await command()
  } catch (err) {
    const report = reportOf(err)
    if (!report) throw err
    process.stderr.write(`hearth: ${report.message}\n`)
    return report.code
  }
}

/**
 * `<title>: <detail> (<code>)`, the detail left out when it only repeats the title. Advice
 * written for other clients is put in the CLI's words: `run /login` (the terminal client's
 * command) becomes `hearth login PROVIDER`, and a refused token says what to check.
 */
export function problemText(err: ProblemError, loginProvider?: string): string {
  const { title, code } = err.problem
  let detail = err.problem.detail
  if (code === 'unauthorized') detail = tokenAdvice(err)
  const text = detail && detail !== title ? `${title}: ${detail} (${code})` : `${title} (${code})`
  return text.replaceAll('run /login', `run: hearth login ${loginProvider ?? 'PROVIDER'}`)
}

/** What a CLI user can do about a refused token (the daemon's own advice is about headers). */
function tokenAdvice(err: ProblemError): string {
  const home = err.endpoint?.home
  if (!home) return 'the token was refused'
  // The daemon reads HOME/token once, when it starts: a file changed since then, or a
  // daemon.json from another home, gives a token it does not know.
  return (
    `the daemon at ${err.endpoint?.url} does not accept ${home}/token; check that --home ` +
    `(or HEARTH_HOME) names the home that daemon was started with, or restart it there ` +
    `(hearth daemon --home ${home}) so that it reads the token again`
  )
}

/** The exit code and message for an error the command expects, or undefined. */
export function reportOf(err: unknown): { code: 1 | 2; message: string } | undefined {
  if (err instanceof UsageError) return { code: 2, message: `${err.message}\nRun hearth --help for usage.` }
  if (err instanceof ProblemError) return { code: 1, message: problemText(err) }
  if (err instanceof ClientError) return { code: 1, message: err.message }
  return undefined
}
