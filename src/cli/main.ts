// The `hearth` command. Exit codes: 0 ok, 1 error, 2 usage. This is the only place that may
// start a daemon, and only when asked (`hearth daemon`).
import { parseArgs } from 'node:util'
import { BUILD, VERSION } from '../build-info.ts'
import { HearthClient, NoDaemonError, ProblemError, ProtocolError } from '../client/client.ts'
import { resolveHome } from '../daemon/home.ts'

const HELP = `hearth ${VERSION}: a local agent daemon speaking protocol 3

Usage:
  hearth daemon [--home DIR] [--port N] [--host 127.0.0.1|::1]
                           run the daemon (default port 0: any free port)
  hearth status [--home DIR]
                           print the running daemon's server resource
  hearth --help            this text
  hearth --version         the version and build

  hearth                   the same as hearth status (the terminal client comes later)

Home: --home, else $HEARTH_HOME, else ~/.hearth. A running daemon writes
HOME/daemon.json (its URL) and HOME/token (the bearer token).

Exit codes: 0 ok, 1 error, 2 usage.
`

class UsageError extends Error {}

function homeOf(flag: string | undefined): string {
  if (flag === '') throw new UsageError('--home needs a directory')
  return resolveHome(flag)
}

type Out = { write: (s: string) => void }

async function daemonCommand(args: string[], out: Out): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      home: { type: 'string' },
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (values.help) {
    out.write(HELP)
    return 0
  }
  const port = /^\d{1,5}$/.test(values.port) ? Number(values.port) : Number.NaN
  if (!(port >= 0 && port <= 65535)) throw new UsageError(`--port must be 0 to 65535, not "${values.port}"`)
  const { runDaemon, DaemonStartError } = await import('../daemon/run.ts')
  try {
    await runDaemon({ home: homeOf(values.home), port, host: values.host })
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
  const { values } = parseArgs({
    args,
    options: { home: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  })
  if (values.help) {
    out.write(HELP)
    return 0
  }
  const client = HearthClient.fromHome(homeOf(values.home))
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
        return await daemonCommand(rest, out)
      case 'status':
        return await statusCommand(rest, out)
      case undefined:
        return await statusCommand([], out)
      default:
        throw new UsageError(
          command.startsWith('-') ? `unknown option ${command}` : `unknown command ${command}`,
        )
    }
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`hearth: ${(err as Error).message}\nRun hearth --help for usage.\n`)
      return 2
    }
    if (err instanceof NoDaemonError || err instanceof ProblemError || err instanceof ProtocolError) {
      process.stderr.write(`hearth: ${err.message}\n`)
      return 1
    }
    throw err
  }
}
