// The `hearth` command. Exit codes: 0 ok, 1 error, 2 usage. This is the only place that may
// start a daemon, and only when asked (`hearth daemon`).
import { parseArgs } from 'node:util'
import { BUILD, VERSION } from '../build-info.ts'
import { HearthClient, NoDaemonError, ProblemError } from '../client/client.ts'
import { resolveHome } from '../daemon/home.ts'

const HELP = `hearth ${VERSION}: a local agent daemon speaking protocol 3

Usage:
  hearth daemon [--home DIR] [--port N] [--host 127.0.0.1|::1]
                           run the daemon (default port 0: any free port)
  hearth status [--home DIR]
                           print the running daemon's server resource
  hearth --help            this text
  hearth --version         the version and build

Home: --home, else $HEARTH_HOME, else ~/.hearth. A running daemon writes
HOME/daemon.json (its URL) and HOME/token (the bearer token).
`

class UsageError extends Error {}

type Out = { write: (s: string) => void }

async function daemonCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      home: { type: 'string' },
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
    },
    strict: true,
  })
  const port = Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be 0 to 65535, not ${values.port}`)
  const { runDaemon, DaemonStartError } = await import('../daemon/run.ts')
  try {
    await runDaemon({ home: resolveHome(values.home), port, host: values.host })
  } catch (err) {
    if (err instanceof DaemonStartError) {
      process.stderr.write(`hearth: ${err.message}\n`)
      return 1
    }
    throw err
  }
  return -1 // keeps running
}

async function statusCommand(args: string[], out: Out): Promise<number> {
  const { values } = parseArgs({ args, options: { home: { type: 'string' } }, strict: true })
  const client = HearthClient.fromHome(resolveHome(values.home))
  const { body } = await client.call('server.get')
  out.write(`${JSON.stringify(body, null, 2)}\n`)
  return 0
}

export async function main(argv: string[], out: Out = process.stdout): Promise<number> {
  const [command, ...rest] = argv
  try {
    switch (command) {
      case '--help':
      case '-h':
      case 'help':
        out.write(HELP)
        return 0
      case '--version':
      case '-v':
        out.write(`hearth ${BUILD}\n`)
        return 0
      case 'daemon':
        return await daemonCommand(rest)
      case 'status':
        return await statusCommand(rest, out)
      case undefined:
        return await statusCommand([], out)
      default:
        throw new UsageError(`unknown command ${command}`)
    }
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`hearth: ${(err as Error).message}\nRun hearth --help for usage.\n`)
      return 2
    }
    if (err instanceof NoDaemonError || err instanceof ProblemError) {
      process.stderr.write(`hearth: ${err.message}\n`)
      return 1
    }
    throw err
  }
}
