// The signed-in GitHub CLI as a Copilot credential: `gh auth token` (for the GitHub host of
// the sign-in settings), run as a real child process without a shell, bounded in time and
// output. Its token is used as it is ("direct": the exchange refuses tokens of the GitHub
// CLI's OAuth app), read again for each use and never stored unless the person asks (a
// login with flow `cli`). `HEARTH_COPILOT_GH` names another program (tests' stand-in).
import { ProgramError, runProgram } from '../shared/run-program.ts'
import { SignInError } from '../shared/sign-in-plugin.ts'
import { GITHUB_HOST } from './constants.ts'

export const GH_TIMEOUT_MS = 10_000
const GH_MAX_BYTES = 4096

/** The program run: `HEARTH_COPILOT_GH`, else `gh` on the daemon's PATH. */
export const ghProgram = (): string => process.env.HEARTH_COPILOT_GH || 'gh'

/**
 * The token `gh auth token` prints for `host` (a test's base URL counts as github.com).
 * Throws SignInError `cli_missing` (no `gh`), `cli_signed_out` (it printed no token or
 * failed: `gh auth login` first), `cli_failed` (timeout, too much output, stopped).
 */
export async function ghAuthToken(host: string, signal?: AbortSignal): Promise<string> {
  const args = ['auth', 'token']
  if (!/^https?:\/\//i.test(host) && host.toLowerCase() !== GITHUB_HOST) args.push('--hostname', host)
  let out: string
  try {
    out = await runProgram(ghProgram(), args, {
      env: process.env,
      signal,
      timeoutMs: GH_TIMEOUT_MS,
      maxBytes: GH_MAX_BYTES,
      name: 'gh auth token',
    })
  } catch (err) {
    if (!(err instanceof ProgramError)) throw err
    if (err.reason === 'start')
      throw new SignInError('cli_missing', 'the GitHub CLI (gh) is not installed or not on the PATH')
    if (err.reason === 'exit') throw new SignInError('cli_signed_out', `${err.message}; run gh auth login`)
    throw new SignInError('cli_failed', err.message)
  }
  const token = out.trim()
  if (!/^[\w.-]{8,}$/.test(token))
    throw new SignInError('cli_signed_out', 'gh auth token printed no token; run gh auth login')
  return token
}
