// `hearth daemon [--home DIR] [--port N] [--host 127.0.0.1|::1] [--demo]`: the one command
// that starts a daemon. It has its own bundle, dist/daemon.mjs, which bin/hearth.mjs loads
// for it, so a daemon's start reads none of the other commands' code.
import { DaemonStartError, runDaemon } from '../daemon/run.ts'
import { homeOf, parseCommand } from './args.ts'
import { type Out, UsageError } from './errors.ts'
import { HELP } from './help.ts'

export async function daemonCommand(args: string[], out: Out): Promise<number> {
  const parsed = parseCommand(
    args,
    {
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      demo: { type: 'boolean' },
    },
    out,
    HELP,
  )
  if (!parsed) return 0
  const { values } = parsed
  const port = /^\d{1,5}$/.test(values.port) ? Number(values.port) : Number.NaN
  if (!(port >= 0 && port <= 65535)) throw new UsageError(`--port must be 0 to 65535, not "${values.port}"`)
  try {
    await runDaemon({ home: homeOf(values.home), port, host: values.host, demo: values.demo ?? false })
  } catch (err) {
    if (err instanceof DaemonStartError) {
      process.stderr.write(`hearth: ${err.message}\n`)
      return 1
    }
    throw err
  }
  return -1 // keeps running
}
