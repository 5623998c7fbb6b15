// The `hearth` command. Exit codes: 0 ok, 1 error, 2 usage. This is the only place that may
// start a daemon, and only when asked (`hearth daemon`).
import { BUILD, VERSION } from '../build-info.ts'
import { HearthClient } from '../client/client.ts'
import { homeOf, parseCommand } from './args.ts'
import { type Out, reportOf, UsageError } from './errors.ts'

const HELP = `hearth ${VERSION}: a local agent daemon speaking protocol 3

Usage:
  hearth daemon [--home DIR] [--port N] [--host 127.0.0.1|::1] [--demo]
                           run the daemon (default port 0: any free port);
                           --demo adds a \`demo\` profile that answers without any account
  hearth status [--home DIR]
                           print the running daemon's server resource
  hearth sessions [--home DIR] [--all] [--search TEXT] [--json]
                           list sessions (roots; --all: children too), newest
                           activity first; --json: one session per line
  hearth session new --workspace DIR [--name N] [--home DIR]
                           create a session; prints its id
  hearth session show ID [--json] [--home DIR]
                           print a session
  hearth session watch ID [--json] [--home DIR]
                           follow a session's events, one line each (--json: one
                           frame per line); survives reconnects and daemon
                           restarts; Ctrl-C stops it
  hearth send SESSION TEXT... [--home DIR]
                           send a message and print the streamed answer
  hearth chat [SESSION] [--workspace DIR] [--home DIR]
                           talk in a session (a new one in the current directory
                           when none is named); Ctrl-C interrupts the answer,
                           a second Ctrl-C quits
  hearth config get [GROUP] [--home DIR]
                           print the settings (all groups, or one of providers,
                           mcp, extensions, capabilities, models, ui); secrets
                           show only as {"saved": true}
  hearth config set GROUP PATCH-JSON [--home DIR]
                           change one group with a JSON merge patch
                           (null removes a field)
  hearth profile add NAME --endpoint URL --model ID [--protocol responses|chat_completions]
                     [--extension E] [--api-key-stdin] [--default] [--home DIR]
                           save a provider profile; the key is read from standard
                           input and kept in HOME/creds.json
  hearth models refresh [--url URL] [--home DIR]
                           download the public model catalogue (default: settings
                           models.catalogue_url, else https://models.dev/api.json)
                           into HOME/cache/models.json;
                           a running daemon uses it from its next request
  hearth login [PROVIDER] [--manual] [--home DIR]
                           sign in to a provider (default chatgpt): opens the
                           browser (unless HEARTH_NO_BROWSER is set; the URL is
                           printed either way) and waits; a pasted callback
                           address or code also finishes it
  hearth accounts [--home DIR]
                           list the signed-in accounts (never their tokens)
  hearth logout ACCOUNT [--home DIR]
                           remove a signed-in account
  hearth --help            this text
  hearth --version         the version and build

  hearth                   the same as hearth status (the terminal client comes later)

Home: --home, else $HEARTH_HOME, else ~/.hearth. A running daemon writes
HOME/daemon.json (its URL) and HOME/token (the bearer token).

Exit codes: 0 ok, 1 error, 2 usage.
`

async function daemonCommand(args: string[], out: Out): Promise<number> {
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
  const { runDaemon, DaemonStartError } = await import('../daemon/run.ts')
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

async function statusCommand(args: string[], out: Out): Promise<number> {
  const parsed = parseCommand(args, {}, out, HELP)
  if (!parsed) return 0
  const { values } = parsed
  const client = HearthClient.fromHome(homeOf(values.home))
  const { body } = await client.call('server.get')
  out.write(`${JSON.stringify(body, null, 2)}\n`)
  return 0
}

/**
 * Standard output, touched only when written: creating process.stdout loads Node's stream
 * modules (~3 ms), which `hearth daemon` never needs before it is ready.
 */
const stdout: Out = { write: (s) => process.stdout.write(s) }

export async function main(argv: string[], out: Out = stdout): Promise<number> {
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
      case 'sessions':
        return await (await import('./sessions.ts')).sessionsCommand(rest, out, HELP)
      case 'session':
        return await (await import('./sessions.ts')).sessionCommand(rest, out, HELP)
      case 'send':
        return await (await import('./chat.ts')).sendCommand(rest, out, HELP)
      case 'chat':
        return await (await import('./chat.ts')).chatCommand(rest, out, HELP)
      case 'models':
        return await (await import('./models.ts')).modelsCommand(rest, out, HELP)
      case 'login':
        return await (await import('./auth.ts')).loginCommand(rest, out, HELP)
      case 'accounts':
        return await (await import('./auth.ts')).accountsCommand(rest, out, HELP)
      case 'logout':
        return await (await import('./auth.ts')).logoutCommand(rest, out, HELP)
      case 'config':
        return await (await import('./config.ts')).configCommand(rest, out, HELP)
      case 'profile':
        return await (await import('./config.ts')).profileCommand(rest, out, HELP)
      case undefined:
        return await statusCommand([], out)
      default:
        throw new UsageError(
          command.startsWith('-') ? `unknown option ${command}` : `unknown command ${command}`,
        )
    }
  } catch (err) {
    const report = reportOf(err)
    if (!report) throw err
    process.stderr.write(`hearth: ${report.message}\n`)
    return report.code
  }
}
