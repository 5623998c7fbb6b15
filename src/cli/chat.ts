// `hearth send SESSION [TEXT]` and `hearth chat [SESSION]`: each message is answered
// by one run (./message-run.ts: sent with a fresh input id, never twice, its answer printed
// as it streams).
// `send` takes the message from standard input when no TEXT is given. Ctrl-C interrupts
// the run in progress; `send` then exits, and in chat a second Ctrl-C exits. In chat, `/context`
// prints what the next request holds and `/compact [summarize|truncate] [TURNS] [FOCUS]`
// compacts the session's context (src/client/context-view.ts); `/reload [composition|models]`
// reloads the session's composition, the model catalogue or both (src/client/reload-view.ts).
// `/upgrade` moves the session onto a kernel of the build on disk (src/client/kernel-view.ts).
// `/commands` and `/skills` list the session's prompt templates and skills from its catalog
// (src/client/catalog.ts), and `/NAME ARGS` sends the template NAME with `$ARGUMENTS`
// replaced by ARGS.

import { resolve } from 'node:path'
import { v7 as uuidv7 } from 'uuid'
import { commandsText, readCommands, readSkills, skillsText, templateMessage } from '../client/catalog.ts'
import { HearthClient, ProblemError } from '../client/client.ts'
import { compact, readContext } from '../client/context-view.ts'
import { createSessionOnce } from '../client/create-session.ts'
import { upgradeKernel } from '../client/kernel-view.ts'
import { reload } from '../client/reload-view.ts'
import { homeOf, parseCommand } from '../command-line/args.ts'
import { type Out, problemText, UsageError } from '../command-line/errors.ts'
import {
  CHAT_OPTIONS,
  checkSessionArg,
  chosenSession,
  resolveSessionId,
  typedHandle,
} from '../command-line/session-id.ts'
import { askOn, LineQueue, sendApprover } from './approvals.ts'
import { newMessageRun, reportRunProblem, SessionFeed, sendAndStream, stopMessageRun } from './message-run.ts'
import { rawFrame } from './run-frames.ts'

function clientOf(home: string): () => HearthClient {
  return () => HearthClient.fromHome(home)
}

/** All of standard input as text, without one final newline. */
async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('(type the message; end it with Ctrl-D)\n')
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '')
}

const silent: Out = { write: () => {} }
const stderr: Out = { write: (s) => process.stderr.write(s) }

/** How long Ctrl-C on `send` waits for the daemon to take the interrupt before exiting. */
const STOP_WAIT_MS = 5000

export async function sendCommand(args: string[], out: Out, help: string): Promise<number> {
  const parsed = parseCommand(
    args,
    { approve: { type: 'string' }, json: { type: 'boolean' } },
    out,
    help,
    true,
  )
  if (!parsed) return 0
  const { values, positionals } = parsed
  const [arg, ...words] = positionals
  if (!arg) throw new UsageError('hearth send needs a session id (and a message, or one on standard input)')
  checkSessionArg(arg)
  const home = homeOf(values.home)
  const client = clientOf(home)
  const sessionId = await resolveSessionId(client(), arg)
  // --json: standard output holds the run's frames only; a question goes to standard error.
  const json = values.json === true
  const approve = sendApprover(
    values.approve as string | undefined,
    words.length === 0,
    json ? stderr : out,
    {
      workspace: () => sessionWorkspace(client(), sessionId),
    },
  )
  const text = words.length > 0 ? words.join(' ') : await readStdin()
  if (text.trim() === '') throw new UsageError('hearth send needs a message: TEXT... or on standard input')
  const sent = newMessageRun()
  // Ctrl-C: stop the run, then exit 130 (whether the answer's end arrives first or not).
  let stopping: Promise<never> | undefined
  const onSigint = () => {
    if (stopping) process.exit(130) // a second Ctrl-C: quit now
    process.stderr.write('\n(interrupting; Ctrl-C again to quit)\n')
    const stopped = stopMessageRun(client(), sessionId, sent).catch((err) => {
      process.stderr.write(`hearth: could not interrupt: ${(err as Error).message}\n`)
    })
    const timeout = new Promise((r) => setTimeout(r, STOP_WAIT_MS))
    stopping = Promise.race([stopped, timeout]).then(() => process.exit(130))
  }
  process.on('SIGINT', onSigint)
  const r = json
    ? await sendAndStream(client, sessionId, text, silent, sent, approve, undefined, (f) =>
        out.write(`${rawFrame(f)}\n`),
      )
    : await sendAndStream(client, sessionId, text, out, sent, approve)
  if (stopping) return await stopping
  process.off('SIGINT', onSigint)
  if (r.problem) await reportRunProblem(client(), sessionId, r.problem)
  return r.outcome === 'completed' ? 0 : 1
}

export async function chatCommand(args: string[], out: Out, help: string): Promise<number> {
  const parsed = parseCommand(args, CHAT_OPTIONS, out, help, true)
  if (!parsed) return 0
  const { values, positionals } = parsed
  if (positionals.length > 1) throw new UsageError(`unexpected argument ${positionals[1]}`)
  if (positionals[0] !== undefined) checkSessionArg(positionals[0])
  const home = homeOf(values.home)
  const client = clientOf(home)
  let workspace = resolve(values.workspace ?? process.cwd())
  const latest = values.last === true || values.continue === true
  let sessionId = await chosenSession(client(), positionals[0], latest, workspace)
  // An unknown or deleted session fails now, not at the first message.
  if (sessionId) workspace = await sessionWorkspace(client(), sessionId)
  // A new session is created with the first line typed: a chat left without one leaves none.
  const session = async (): Promise<string> => {
    if (sessionId) return sessionId
    const created = await createSessionOnce(uuidv7(), { kind: 'new', workspace }, { client })
    const model = created.provider_profile ? `${created.provider_profile} ${created.model}` : 'no profile yet'
    out.write(`session ${created.id} (${model})\n`)
    sessionId = created.id
    return sessionId
  }
  const chat = await chatLines(client, session, out, workspace)
  if (sessionId)
    process.stderr.write(
      `Continue this session with: hearth chat ${await typedHandle(client(), sessionId)}\n`,
    )
  return chat.failed ? 1 : 0
}

/** The workspace of a session (an unknown or deleted one fails here). */
async function sessionWorkspace(client: HearthClient, sessionId: string): Promise<string> {
  const { body } = await client.call('sessions.get', {
    params: { session_id: sessionId },
    query: { tail: 0 },
  })
  return (body as { workspace: string }).workspace
}

/** Reads lines from standard input until it ends, each a message or a command of the chat. */
async function chatLines(
  client: () => HearthClient,
  session: () => Promise<string>,
  out: Out,
  workspace: string,
): Promise<{ failed: boolean }> {
  let failed = false
  let running: { runId: string; sessionId: string } | undefined
  let interrupts = 0
  let feed: SessionFeed | undefined
  const onSigint = () => {
    interrupts++
    if (!running || interrupts > 1) process.exit(130)
    const { runId, sessionId } = running
    void client()
      .call('sessions.get', { params: { session_id: sessionId }, query: { tail: 0 } })
      .then(({ body }) =>
        client().call('sessions.interrupt', {
          params: { session_id: sessionId },
          body: { run_id: runId, through_input_order: (body as { input_order: number }).input_order },
        }),
      )
      .catch(() => {})
    process.stderr.write('\n(interrupting; Ctrl-C again to quit)\n')
  }
  process.on('SIGINT', onSigint)
  const lines = new LineQueue(process.stdin)
  const approve = askOn(lines, out, workspace)
  out.write('> ')
  for (let line = await lines.next(); line !== undefined; line = await lines.next()) {
    if (line.trim() === '') {
      out.write('> ')
      continue
    }
    interrupts = 0
    const sessionId = await session()
    // The chat's own commands win over a template of the same name (and read no templates).
    const command = /^\/(context|compact|reload|upgrade|commands|skills)(?:\s+(.*))?$/.exec(line.trim())
    if (!command && line.trimStart().startsWith('/')) {
      try {
        line = templateMessage(await readCommands(client(), sessionId), line) ?? line
      } catch (err) {
        process.stderr.write(`hearth: commands not read: ${errorText(err)}\n`)
      }
    }
    if (command) {
      try {
        const args = command[2] ?? ''
        const text =
          command[1] === 'context'
            ? await readContext(client(), sessionId)
            : command[1] === 'reload'
              ? await reload(client(), sessionId, args)
              : command[1] === 'commands'
                ? commandsText(await readCommands(client(), sessionId))
                : command[1] === 'skills'
                  ? skillsText(await readSkills(client(), sessionId))
                  : command[1] === 'upgrade'
                    ? await upgradeKernel(client(), sessionId)
                    : await compact(client(), sessionId, args)
        out.write(`${text}\n`)
      } catch (err) {
        process.stderr.write(`hearth: ${errorText(err)}\n`)
      }
      out.write('> ')
      continue
    }
    try {
      // One stream of the session serves every message of the chat.
      if (feed?.sessionId !== sessionId) {
        feed?.close()
        feed = await SessionFeed.open(client, sessionId)
      }
      const onRun = (runId: string) => {
        running = { runId, sessionId }
      }
      const r = await sendAndStream(
        client,
        sessionId,
        line,
        out,
        newMessageRun(),
        approve,
        onRun,
        undefined,
        feed,
      )
      if (r.problem) await reportRunProblem(client(), sessionId, r.problem)
      else if (r.outcome === 'interrupted') process.stderr.write('(interrupted)\n')
      if (r.outcome !== 'completed' && r.outcome !== 'interrupted') failed = true
    } finally {
      running = undefined
    }
    out.write('> ')
  }
  feed?.close()
  process.off('SIGINT', onSigint)
  return { failed }
}

function errorText(err: unknown): string {
  return err instanceof ProblemError ? problemText(err) : (err as Error).message
}
