// A trusted local program run for a credential (bedrock's `credential_process`, the GitHub
// CLI's `gh auth token`): no shell, bounded output and time, abortable. Its stdout holds
// secrets, so no message ever quotes it; a failure quotes the end of its stderr.
import { spawn } from 'node:child_process'

/** How much of the program's stderr a failure message quotes. */
const STDERR_SHOWN = 300

export class ProgramError extends Error {
  /** Why: `start` (not found, not executable), `exit`, `timeout`, `size`, `abort`. */
  readonly reason: 'start' | 'exit' | 'timeout' | 'size' | 'abort'
  constructor(reason: ProgramError['reason'], message: string) {
    super(message)
    this.name = 'ProgramError'
    this.reason = reason
  }
}

export interface ProgramOptions {
  env: Readonly<Record<string, string | undefined>>
  signal?: AbortSignal
  timeoutMs: number
  maxBytes: number
  /** How messages name the program, e.g. `credential_process aws-vault`. */
  name: string
}

/** The program's stdout, once it exited 0 within the limits; throws ProgramError. */
export function runProgram(program: string, args: readonly string[], opts: ProgramOptions): Promise<string> {
  const fail = (reason: ProgramError['reason'], why: string) =>
    new ProgramError(reason, `${opts.name} ${why}`)
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      env: { ...opts.env } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: false,
      signal: opts.signal,
    })
    const out: Buffer[] = []
    let outBytes = 0
    let err = ''
    let settled = false
    const finish = (error: ProgramError | null) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      if (error) {
        child.kill('SIGKILL')
        reject(error)
      } else resolve(Buffer.concat(out).toString('utf8'))
    }
    const timer = setTimeout(
      () => finish(fail('timeout', `did not finish within ${opts.timeoutMs / 1000} s`)),
      opts.timeoutMs,
    )
    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length
      if (outBytes > opts.maxBytes) finish(fail('size', `printed more than ${opts.maxBytes} bytes`))
      else out.push(chunk)
    })
    child.stderr.on('data', (chunk: Buffer) => {
      if (err.length < STDERR_SHOWN * 4) err += chunk.toString('utf8')
    })
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (e.name === 'AbortError') finish(fail('abort', 'was stopped: the step was aborted'))
      else finish(fail('start', `could not be started (${e.code ?? e.message})`))
    })
    child.on('close', (code, signal) => {
      if (code === 0) return finish(null)
      const said = err.trim().slice(-STDERR_SHOWN)
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`
      finish(fail('exit', said ? `${how}: ${said}` : how))
    })
  })
}
