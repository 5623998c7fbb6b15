// `hearth send SESSION [TEXT]` and `hearth chat [SESSION]`: submit a message with a fresh
// input id (retried with the same id when the answer is uncertain, so it is never sent
// twice) and print the answer as it streams. `send` takes the message from standard input
// when no TEXT is given. Ctrl-C interrupts the running turn (naming the run and the inputs
// this client saw); `send` then exits, and in chat a second Ctrl-C exits. In chat, `/context`
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
import { advisesLogin } from '../client/login.ts'
import { profilesOf } from '../client/profiles.ts'
import { reload } from '../client/reload-view.ts'
import { followSession, type StreamFrame } from '../client/session-follow.ts'
import { homeOf, parseCommand } from '../command-line/args.ts'
import { CommandError, type Out, problemText, UsageError } from '../command-line/errors.ts'
import {
  CHAT_OPTIONS,
  checkSessionArg,
  chosenSession,
  resolveSessionId,
  typedHandle,
} from '../command-line/session-id.ts'
import { type Approver, askOn, LineQueue, sendApprover } from './approvals.ts'
import { RunFrames, rawFrame } from './run-frames.ts'
import { type ApprovalRequest, ToolView } from './tool-view.ts'

/** Pauses before retrying an input PUT whose answer did not arrive. */
const RETRY_DELAYS_MS = [200, 500, 1000, 2000]

interface Turn {
  inputId: string
  runId: string | undefined
  textContents: Set<string>
}

type InputBody =
  | { kind: 'message'; text: string }
  | { kind: 'approval'; request_id: string; decision: 'allow' | 'deny'; remember: 'once' | 'session' }

async function submit(
  client: () => HearthClient,
  sessionId: string,
  inputId: string,
  input: InputBody,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await client().call('inputs.put', {
        params: { session_id: sessionId, input_id: inputId },
        body: { ...input, client_id: `cli-${process.pid}` },
      })
      return
    } catch (err) {
      // A problem is an answer; only a lost connection leaves the outcome unknown.
      if (err instanceof ProblemError || attempt >= RETRY_DELAYS_MS.length) throw err
      await new Promise((r) => setTimeout(r, RETRY_DELAYS_MS[attempt]))
    }
  }
}

const newTurn = (): Turn => ({ inputId: uuidv7(), runId: undefined, textContents: new Set() })

/**
 * Answers one approval request with an input of kind `approval` (its own fresh id, retried
 * like a message, so the decision is recorded once). A 409 means it was decided or expired
 * meanwhile (another client answered, the run ended): said, not fatal.
 */
async function answerApproval(
  client: () => HearthClient,
  sessionId: string,
  request: ApprovalRequest,
  approve: Approver,
): Promise<void> {
  const answer = await approve(request)
  try {
    await submit(client, sessionId, uuidv7(), { kind: 'approval', request_id: request.request_id, ...answer })
  } catch (err) {
    if (err instanceof ProblemError && err.status === 409) {
      process.stderr.write(`(approval not recorded: ${err.problem.detail ?? err.problem.title})\n`)
      return
    }
    throw err
  }
}

/** Sends one message and prints its answer; resolves with the run's outcome. */
async function sendAndStream(
  client: () => HearthClient,
  sessionId: string,
  text: string,
  out: Out,
  turn: Turn,
  approve: Approver,
  onRun: (runId: string, inputOrder: number) => void = () => {},
  onRunFrame?: (f: StreamFrame) => void,
): Promise<{ outcome: string; problem: ProblemError['problem'] | null }> {
  const { body: before } = await client().call('sessions.get', {
    params: { session_id: sessionId },
    query: { tail: 0 },
  })
  const session = before as { cursor: { generation: number; sequence: number } }
  const stop = new AbortController()
  let result: { outcome: string; problem: ProblemError['problem'] | null } | undefined
  const tools = new ToolView(out)
  const calls = new Set<string>()
  /** Summaries of the calls that asked for approval, by call id. */
  const asked = new Map<string, string>()
  let approvals = Promise.resolve()
  const runFrames = new RunFrames(turn.inputId)
  const onFrame = (f: StreamFrame) => {
    const data = JSON.parse(f.data) as { payload?: Record<string, any> }
    const p = data.payload ?? {}
    if (onRunFrame && runFrames.takes(f.event, p)) onRunFrame(f)
    if (f.event === 'run.started' && (p.input_ids as string[]).includes(turn.inputId)) {
      turn.runId = p.run_id
      onRun(p.run_id, 0)
    } else if (f.event === 'output.started' && p.run_id === turn.runId && p.kind === 'text') {
      turn.textContents.add(p.content_id)
    } else if (f.event === 'output.delta' && turn.textContents.has(p.content_id)) {
      out.write(p.delta)
      tools.answered(p.delta)
    } else if (f.event === 'tool.started' && p.run_id === turn.runId) {
      calls.add(p.call_id)
      tools.started(p as never)
    } else if (f.event === 'tool.progress' && calls.has(p.call_id)) {
      tools.progress(p as never)
    } else if (f.event === 'tool.ended' && p.run_id === turn.runId) {
      // A denied call never started: its line comes from the question that denied it.
      if (!calls.has(p.call_id))
        tools.started({ call_id: p.call_id, name: '', summary: asked.get(p.call_id) })
      calls.delete(p.call_id)
      tools.ended(p as never)
    } else if (f.event === 'approval.requested' && p.run_id === turn.runId) {
      // One question at a time, in the order the run asked them.
      const request = p as ApprovalRequest
      asked.set(p.call_id, request.summary)
      approvals = approvals
        .then(() => answerApproval(client, sessionId, request, approve))
        .catch((err) => void process.stderr.write(`hearth: could not answer the approval: ${err.message}\n`))
    } else if (f.event === 'run.ended' && p.run_id === turn.runId) {
      result = { outcome: p.outcome, problem: p.problem }
      stop.abort()
    }
  }
  const following = followSession({
    client,
    sessionId,
    signal: stop.signal,
    onFrame,
    after: { generation: session.cursor.generation, seq: session.cursor.sequence },
  })
  try {
    await submit(client, sessionId, turn.inputId, { kind: 'message', text })
  } catch (err) {
    stop.abort()
    await following.catch(() => {})
    throw err
  }
  const end = await following
  if (end.reason === 'deleted') throw new CommandError('the session was deleted')
  out.write('\n')
  return result ?? { outcome: 'unknown', problem: null }
}

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

/**
 * The name of the provider to sign in to when `problem` advises it (`run /login`): the
 * extension of the session's profile, or undefined.
 */
async function loginProviderFor(
  client: HearthClient,
  sessionId: string,
  problem: ProblemError['problem'],
): Promise<string | undefined> {
  if (!advisesLogin(problem)) return undefined
  try {
    const { body } = await client.call('sessions.get', {
      params: { session_id: sessionId },
      query: { tail: 0 },
    })
    const profile = (await profilesOf(client))[(body as { provider_profile: string }).provider_profile]
    return (profile as { extension?: string } | undefined)?.extension
  } catch {
    return undefined // the advice keeps its placeholder
  }
}

async function reportRunProblem(client: HearthClient, sessionId: string, problem: ProblemError['problem']) {
  const provider = await loginProviderFor(client, sessionId, problem)
  process.stderr.write(`hearth: ${problemText(new ProblemError(problem), provider)}\n`)
}

/**
 * Stops what this command sent: the run serving its input once known (sessions.interrupt,
 * with the input order read now), else the input itself while it waits (inputs.cancel).
 */
async function stopTurn(client: HearthClient, sessionId: string, turn: Turn): Promise<void> {
  if (turn.runId !== undefined) {
    const { body } = await client.call('sessions.get', {
      params: { session_id: sessionId },
      query: { tail: 0 },
    })
    await client.call('sessions.interrupt', {
      params: { session_id: sessionId },
      body: { run_id: turn.runId, through_input_order: (body as { input_order: number }).input_order },
    })
    return
  }
  await client.call('inputs.cancel', { params: { session_id: sessionId, input_id: turn.inputId }, body: {} })
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
  const turn = newTurn()
  // Ctrl-C: stop the turn, then exit 130 (whether the answer's end arrives first or not).
  let stopping: Promise<never> | undefined
  const onSigint = () => {
    if (stopping) process.exit(130) // a second Ctrl-C: quit now
    process.stderr.write('\n(interrupting; Ctrl-C again to quit)\n')
    const stopped = stopTurn(client(), sessionId, turn).catch((err) => {
      process.stderr.write(`hearth: could not interrupt: ${(err as Error).message}\n`)
    })
    const timeout = new Promise((r) => setTimeout(r, STOP_WAIT_MS))
    stopping = Promise.race([stopped, timeout]).then(() => process.exit(130))
  }
  process.on('SIGINT', onSigint)
  const r = json
    ? await sendAndStream(client, sessionId, text, silent, turn, approve, undefined, (f) =>
        out.write(`${rawFrame(f)}\n`),
      )
    : await sendAndStream(client, sessionId, text, out, turn, approve)
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
  const turns = await chatLines(client, session, out, workspace)
  if (sessionId)
    process.stderr.write(
      `Continue this session with: hearth chat ${await typedHandle(client(), sessionId)}\n`,
    )
  return turns.failed ? 1 : 0
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
      const r = await sendAndStream(client, sessionId, line, out, newTurn(), approve, (runId) => {
        running = { runId, sessionId }
      })
      if (r.problem) await reportRunProblem(client(), sessionId, r.problem)
      else if (r.outcome === 'interrupted') process.stderr.write('(interrupted)\n')
      if (r.outcome !== 'completed' && r.outcome !== 'interrupted') failed = true
    } finally {
      running = undefined
    }
    out.write('> ')
  }
  process.off('SIGINT', onSigint)
  return { failed }
}

function errorText(err: unknown): string {
  return err instanceof ProblemError ? problemText(err) : (err as Error).message
}
