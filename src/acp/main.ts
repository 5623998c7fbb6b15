// `hearth acp [--no-start] [--home DIR]`: the Agent Client Protocol agent an editor starts,
// speaking newline-delimited JSON-RPC on stdin/stdout, a thin client of the home's daemon.
// Standard output carries the protocol and nothing else: everything a person should read
// goes to standard error, and console output is sent there too, so no stray line can break
// the editor's stream. The process serves until the editor closes its standard input.
import { spawn } from 'node:child_process'
import { Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { type AgentContext, ndJsonStream } from '@agentclientprotocol/sdk'
import { daemonAnswers, HearthClient } from '../client/client.ts'
import { homeOf, parseCommand } from '../command-line/args.ts'
import { CommandError, type Out } from '../command-line/errors.ts'
import { HearthAgent } from './agent.ts'
import type { AcpContext } from './context.ts'
import { Live } from './live.ts'
import { jsonLines } from './stdio.ts'

const log = (line: string) => {
  try {
    process.stderr.write(`${line}\n`)
  } catch {
    // nobody reads standard error
  }
}

/** Any console output of any module goes to standard error, never into the protocol. */
function keepStdoutForProtocol(): void {
  const toStderr = (...args: unknown[]) => console.error(...args)
  console.log = toStderr
  console.info = toStderr
  console.debug = toStderr
  console.warn = toStderr
  console.dir = toStderr
  console.table = toStderr
}

/**
 * Starts `hearth daemon` for the home in the background (the editor started this process as
 * the user's local launcher, so it may) and waits until it answers.
 */
async function startDaemon(home: string): Promise<void> {
  log(`hearth acp: no hearth daemon runs for ${home}; starting one (hearth daemon --home ${home})`)
  const bin = fileURLToPath(new URL('../bin/hearth.mjs', import.meta.url))
  const child = spawn(
    process.execPath,
    ['--max-semi-space-size=1', bin, 'daemon', '--home', home, '--quiet'],
    {
      detached: true,
      stdio: 'ignore',
    },
  )
  child.unref()
  const deadline = Date.now() + 15_000
  while (Date.now() < deadline) {
    if (await daemonAnswers(home)) {
      log('hearth acp: the daemon is ready')
      return
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new CommandError(`the daemon did not start for ${home}; see its log in the home`)
}

/** The daemon of the home, found as the CLI finds it, started when none runs and allowed. */
async function ensureDaemon(home: string, mayStart: boolean): Promise<void> {
  if (await daemonAnswers(home)) return
  if (!mayStart)
    throw new CommandError(`no hearth daemon runs for ${home}; start one with: hearth daemon --home ${home}`)
  await startDaemon(home)
}

/**
 * A client of the daemon as it is now: the endpoint is read again when daemon.json changed
 * (a restarted daemon listens on a new port), so every call goes to the running one.
 */
function clientOf(home: string): () => HearthClient {
  let client = HearthClient.fromHome(home)
  return () => {
    try {
      const now = HearthClient.fromHome(home)
      if (now.endpoint.url !== client.endpoint.url || now.endpoint.token !== client.endpoint.token)
        client = now
    } catch {
      // no daemon right now: the last one's client fails with NoDaemonError, as it should
    }
    return client
  }
}

export async function acpCommand(args: string[], out: Out, help: string): Promise<number> {
  const parsed = parseCommand(args, { 'no-start': { type: 'boolean' } }, out, help)
  if (!parsed) return 0
  keepStdoutForProtocol()
  // A long-lived agent: a failure in one request's background work is said, not fatal.
  process.on('unhandledRejection', (err) => log(`hearth acp: ${(err as Error)?.stack ?? err}`))
  const home = homeOf(parsed.values.home)
  await ensureDaemon(home, !parsed.values['no-start'])
  const client = clientOf(home)
  let conn: AgentContext | undefined
  const live = new Live({ conn: () => conn as AgentContext, client, log })
  const ctx: AcpContext = {
    conn: undefined as unknown as AgentContext,
    get client() {
      return client()
    },
    clientCapabilities: undefined,
    live,
    log,
  }
  const stream = ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    jsonLines(process.stdin, (line) => process.stdout.write(line)),
  )
  const connection = new HearthAgent(ctx).app().connect(stream)
  conn = connection.client
  ctx.conn = connection.client
  await connection.closed
  // The editor is gone: its runs and their approvals stay with the daemon.
  live.close()
  setTimeout(() => process.exit(0), 200).unref()
  return 0
}
