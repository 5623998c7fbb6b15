// `hearth` (no arguments) and `hearth chat [SESSION]` at a terminal: the full-screen
// client. Without a terminal on both standard input and output, `hearth chat` keeps its
// line mode (src/cli/chat.ts). With no daemon running the client says how to start one,
// and starts one only when asked with a key.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { daemonAnswers, endpointOfHome, HearthClient, NoDaemonError } from '../client/client.ts'
import { homeOf, parseCommand } from '../command-line/args.ts'
import type { Out } from '../command-line/errors.ts'
import { UsageError } from '../command-line/errors.ts'
import { CHAT_OPTIONS, checkSessionArg, chosenSession, typedHandle } from '../command-line/session-id.ts'
import { runApp } from './app.ts'
import { colourWanted, makeTheme } from './theme.ts'

export async function tuiCommand(args: string[], out: Out, help: string): Promise<number> {
  const parsed = parseCommand(args, CHAT_OPTIONS, out, help, true)
  if (!parsed) return 0
  const { values, positionals } = parsed
  if (positionals.length > 1) throw new UsageError(`unexpected argument ${positionals[1]}`)
  if (positionals[0] !== undefined) checkSessionArg(positionals[0])
  const home = homeOf(values.home)
  // Only the files that name a running daemon are read before the first frame: the first
  // request loads Node's fetch (tens of milliseconds), so it is made behind the prompt.
  if (!daemonNamed(home) && !(await offerToStart(home))) return 1
  const client = () => HearthClient.fromHome(home)
  const workspace = resolve(values.workspace ?? process.cwd())
  const latest = values.last === true || values.continue === true
  const sessionId = await chosenSession(client(), positionals[0], latest, workspace)
  const end = await runApp({ client, theme: makeTheme(colourWanted()), workspace, sessionId })
  if (end.sessionId)
    out.write(`Continue this session with: hearth chat ${await typedHandle(client(), end.sessionId)}\n`)
  return end.code
}

/** Whether HOME/daemon.json and HOME/token name a daemon (it may still not answer). */
function daemonNamed(home: string): boolean {
  try {
    endpointOfHome(home)
    return true
  } catch (err) {
    if (err instanceof NoDaemonError) return false
    throw err
  }
}

/** One key from the terminal, in raw mode. */
function readKey(): Promise<string> {
  return new Promise((resolve) => {
    process.stdin.setRawMode(true)
    process.stdin.resume()
    process.stdin.once('data', (d) => {
      process.stdin.setRawMode(false)
      process.stdin.pause()
      resolve(d.toString('utf8'))
    })
  })
}

/**
 * Says that no daemon runs and how to start one; on `d`, starts `hearth daemon` for this
 * home in the background and waits for it. Resolves whether one now answers.
 */
async function offerToStart(home: string): Promise<boolean> {
  process.stderr.write(
    `No hearth daemon runs for ${home}.\n` +
      `Start one in another terminal with: hearth daemon --home ${home}\n` +
      'or press d to start it in the background now (any other key quits). ',
  )
  const key = await readKey()
  process.stderr.write('\n')
  if (key.toLowerCase() !== 'd') return false
  const bin = fileURLToPath(new URL('../bin/hearth.mjs', import.meta.url))
  const child = spawn(bin, ['daemon', '--home', home, '--quiet'], { detached: true, stdio: 'ignore' })
  child.unref()
  const deadline = Date.now() + 15_000
  while (Date.now() < deadline) {
    if (existsSync(join(home, 'daemon.json')) && (await daemonAnswers(home))) return true
    await new Promise((r) => setTimeout(r, 100))
  }
  process.stderr.write('hearth: the daemon did not start; see its log in the home\n')
  return false
}
