// `credential_process`: a trusted local program named in the AWS config file that prints
// credentials as JSON (`{"Version": 1, "AccessKeyId", "SecretAccessKey", "SessionToken"?,
// "Expiration"?}`). The command line is split as the AWS CLI splits it (POSIX shell words,
// quotes honoured, nothing expanded: no `~`, no `$VAR`, no pipes) and run without a shell,
// with the daemon's environment. Its output is capped at 64 KiB and its run at 30 s; it runs
// again on every model step. Its stdout holds secrets, so no message ever quotes it.
import { split } from 'shlex'
import { ProgramError, runProgram } from '../shared/run-program.ts'
import type { Env } from './aws-files.ts'

export const PROCESS_MAX_BYTES = 64 * 1024
export const PROCESS_TIMEOUT_MS = 30_000
export interface ProcessCredentials {
  accessKeyId: string
  secretAccessKey: string
  sessionToken?: string
}

export class CredentialProcessError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'CredentialProcessError'
  }
}

export interface ProcessOptions {
  env: Env
  signal?: AbortSignal
  timeoutMs?: number
  maxBytes?: number
  now?: () => number
}

/** Runs the command and returns the credentials it printed; throws CredentialProcessError. */
export async function runCredentialProcess(
  command: string,
  opts: ProcessOptions,
): Promise<ProcessCredentials> {
  let argv: string[]
  try {
    argv = split(command)
  } catch (err) {
    throw new CredentialProcessError(
      `credential_process cannot be split into words: ${(err as Error).message}`,
    )
  }
  const [program, ...args] = argv
  if (!program) throw new CredentialProcessError('credential_process is empty')
  const stdout = await collect(program, args, opts)
  return parseOutput(stdout, opts.now?.() ?? Date.now())
}

/** The program's stdout, once it exited 0 within the limits. */
async function collect(program: string, args: string[], opts: ProcessOptions): Promise<string> {
  try {
    return await runProgram(program, args, {
      env: opts.env,
      signal: opts.signal,
      timeoutMs: opts.timeoutMs ?? PROCESS_TIMEOUT_MS,
      maxBytes: opts.maxBytes ?? PROCESS_MAX_BYTES,
      name: `credential_process ${program}`,
    })
  } catch (err) {
    if (err instanceof ProgramError) throw new CredentialProcessError(err.message)
    throw err
  }
}

/** The credentials in the program's JSON; messages name the field at fault, never a value. */
export function parseOutput(stdout: string, now: number): ProcessCredentials {
  let body: unknown
  try {
    body = JSON.parse(stdout)
  } catch {
    throw new CredentialProcessError('credential_process did not print a JSON object')
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new CredentialProcessError('credential_process did not print a JSON object')
  const o = body as Record<string, unknown>
  if (o.Version !== 1) throw new CredentialProcessError('credential_process printed a Version other than 1')
  const text = (key: string) => (typeof o[key] === 'string' && o[key] !== '' ? (o[key] as string) : undefined)
  const accessKeyId = text('AccessKeyId')
  const secretAccessKey = text('SecretAccessKey')
  if (!accessKeyId || !secretAccessKey)
    throw new CredentialProcessError('credential_process printed no AccessKeyId and SecretAccessKey')
  if (o.Expiration !== undefined) {
    const expires = typeof o.Expiration === 'string' ? Date.parse(o.Expiration) : Number.NaN
    if (!Number.isFinite(expires))
      throw new CredentialProcessError('credential_process printed an Expiration that is not a date')
    if (expires <= now) throw new CredentialProcessError('credential_process printed expired credentials')
  }
  const sessionToken = text('SessionToken')
  return sessionToken ? { accessKeyId, secretAccessKey, sessionToken } : { accessKeyId, secretAccessKey }
}
