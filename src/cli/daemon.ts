// `hearth daemon [--home DIR] [--port N] [--host 127.0.0.1|::1] [--demo] [--quiet]`: the one
// command that starts a daemon. It has its own bundle, dist/daemon.mjs, which bin/hearth.mjs
// loads for it, so a daemon's start reads none of the other commands' code.
import { homeOf, parseCommand } from '../command-line/args.ts'
import { type Out, UsageError } from '../command-line/errors.ts'
import { DaemonStartError, runDaemon } from '../daemon/run.ts'
import { helpFor } from './help.ts'

/**
 * One line on standard output, written straight to file descriptor 1: process.stdout would
 * load Node's stream modules (~3 ms) that the daemon never needs otherwise. A closed or
 * full output is not a reason to fail.
 */
function say(line: string): void {
  try {
    process.getBuiltinModule('node:fs').writeSync(1, `${line}\n`)
  } catch {
    // nobody reads standard output
  }
}

export async function daemonCommand(args: string[], out: Out): Promise<number> {
  const parsed = parseCommand(
    args,
    {
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      demo: { type: 'boolean' },
      quiet: { type: 'boolean', short: 'q' },
    },
    out,
    helpFor(['daemon']),
  )
  if (!parsed) return 0
  const { values } = parsed
  const port = /^\d{1,5}$/.test(values.port) ? Number(values.port) : Number.NaN
  if (!(port >= 0 && port <= 65535)) throw new UsageError(`--port must be 0 to 65535, not "${values.port}"`)
  const home = homeOf(values.home)
  const quiet = values.quiet ?? false
  try {
    await runDaemon({
      home,
      port,
      host: values.host,
      demo: values.demo ?? false,
      onReady: quiet
        ? undefined
        : (r) => say(`hearth daemon listening on ${r.url} (home ${r.home}, pid ${r.pid})`),
      onStopped: quiet ? undefined : () => say(`hearth daemon stopped (home ${home}, pid ${process.pid})`),
    })
  } catch (err) {
    if (err instanceof DaemonStartError) {
      process.stderr.write(`hearth: ${err.message}\n`)
      return 1
    }
    throw err
  }
  return -1 // keeps running
}
