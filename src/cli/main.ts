// The `hearth` command. Exit codes: 0 ok, 1 error, 2 usage. The CLI is the only place that may
// start a daemon, and only when asked (`hearth daemon`, in ./daemon.ts).
import { BUILD } from '../build-info.ts'
import { HearthClient } from '../client/client.ts'
import { homeOf, parseCommand, takeGlobalOptions } from '../command-line/args.ts'
import { type Out, reported, stdout, UsageError } from '../command-line/errors.ts'
import { helpFor } from './help.ts'
import { writeJson } from './output.ts'

async function statusCommand(args: string[], out: Out): Promise<number> {
  const parsed = parseCommand(args, {}, out, helpFor(['status']))
  if (!parsed) return 0
  const { values } = parsed
  const client = HearthClient.fromHome(homeOf(values.home))
  const { body } = await client.call('server.get')
  writeJson(out, body)
  return 0
}

/** At a terminal the full-screen client; otherwise the line mode. */
async function chatCommand(args: string[], out: Out, help: string): Promise<number> {
  if (process.stdin.isTTY && process.stdout.isTTY)
    return await (await import('../tui/main.ts')).tuiCommand(args, out, help)
  return await (await import('./chat.ts')).chatCommand(args, out, help)
}

export async function main(argv: string[], out: Out = stdout): Promise<number> {
  return reported(async () => {
    const { command, rest } = takeGlobalOptions(argv)
    // `hearth CMD [SUB] --help` prints that command's part of the help.
    const help = helpFor([command, rest[0]])
    switch (command) {
      case '--help':
      case '-h':
        out.write(help)
        return 0
      case 'help':
        out.write(helpFor(rest))
        return 0
      case '--version':
      case '-v':
        out.write(`hearth ${BUILD}\n`)
        return 0
      case 'daemon': // bin/hearth.mjs starts dist/daemon.mjs for this; here for `node dist/hearth.mjs`
        return await (await import('./daemon.ts')).daemonCommand(rest, out)
      case 'status':
        return await statusCommand(rest, out)
      case 'sessions':
        return await (await import('./sessions.ts')).sessionsCommand(rest, out, help)
      case 'session':
        return await (await import('./sessions.ts')).sessionCommand(rest, out, help)
      case 'send':
        return await (await import('./chat.ts')).sendCommand(rest, out, help)
      case 'diff':
        return await (await import('./changes.ts')).diffCommand(rest, out, help)
      case 'undo':
        return await (await import('./changes.ts')).undoCommand(rest, out, help)
      case 'redo':
        return await (await import('./changes.ts')).redoCommand(rest, out, help)
      case 'interrupt':
        return await (await import('./session-control.ts')).interruptCommand(rest, out, help)
      case 'chat':
        return await chatCommand(rest, out, help)
      case '-c':
      case '--continue':
        // `hearth -c`: the latest session of this directory, as `hearth chat --last`.
        return await chatCommand(['--last', ...rest], out, helpFor(['chat']))
      case 'acp':
        // An editor's terminal sign-in runs `hearth acp --login PROVIDER`: `hearth login` there.
        if (rest.includes('--login'))
          return await (await import('./auth.ts')).loginCommand(
            rest.filter((a) => a !== '--login' && a !== '--no-start'),
            out,
            helpFor(['login']),
          )
        return await (await import('../acp/main.ts')).acpCommand(rest, out, help)
      case 'models':
        return await (await import('./models.ts')).modelsCommand(rest, out, help)
      case 'login':
        return await (await import('./auth.ts')).loginCommand(rest, out, help)
      case 'accounts':
        return await (await import('./auth.ts')).accountsCommand(rest, out, help)
      case 'logout':
        return await (await import('./auth.ts')).logoutCommand(rest, out, help)
      case 'config':
        return await (await import('./config.ts')).configCommand(rest, out, help)
      case 'profile':
        return await (await import('./config.ts')).profileCommand(rest, out, help)
      case 'mcp':
        return await (await import('./mcp.ts')).mcpCommand(rest, out, help)
      case 'quota':
        return await (await import('./quota.ts')).quotaCommand(rest, out, help)
      case 'work':
        return await (await import('./work.ts')).workCommand(rest, out, help)
      case 'web':
        return await (await import('./web.ts')).webCommand(rest, out, help)
      case undefined:
        // `hearth` alone opens the full-screen client at a terminal, else prints the status.
        if (process.stdin.isTTY && process.stdout.isTTY)
          return await (await import('../tui/main.ts')).tuiCommand(rest, out, help)
        return await statusCommand([], out)
      default:
        throw new UsageError(
          command.startsWith('-') ? `unknown option ${command}` : `unknown command ${command}`,
        )
    }
  })
}
