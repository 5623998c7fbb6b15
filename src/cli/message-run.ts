// One message of `hearth send` and `hearth chat` and the run that answers it: submit the
// message with a fresh input id (retried with the same id when the answer is uncertain, so
// it is never sent twice), print the answer and the tool calls as they stream, answer the
// run's approval questions and its MCP servers' questions (./elicitations.ts), and stop the run on Ctrl-C (naming the run and the inputs this
// client saw). The commands that read the messages and send them are ./chat.ts.

import { v7 as uuidv7 } from 'uuid'
import { type HearthClient, ProblemError } from '../client/client.ts'
import type { Question } from '../client/elicitation-view.ts'
import { advisesLogin } from '../client/login.ts'
import { profilesOf } from '../client/profiles.ts'
import { type FollowEnd, followSession, type StreamFrame } from '../client/session-follow.ts'
import { CommandError, type Out, problemText } from '../command-line/errors.ts'
import type { Approver } from './approvals.ts'
import { answerQuestion, declineUnasked } from './elicitations.ts'
import { RunFrames } from './run-frames.ts'
import { type ApprovalRequest, ToolView } from './tool-view.ts'

/** Pauses before retrying an input PUT whose answer did not arrive. */
const RETRY_DELAYS_MS = [200, 500, 1000, 2000]

/** A message this command sent: its input id, then the run that took it and that run's text blocks. */
export interface MessageRun {
  inputId: string
  runId: string | undefined
  textContents: Set<string>
}

type InputBody =
  | { kind: 'message'; text: string }
  | { kind: 'approval'; request_id: string; decision: 'allow' | 'deny'; remember: 'once' | 'session' }
  | {
      kind: 'elicitation'
      request_id: string
      action: 'accept' | 'decline' | 'cancel'
      content?: Record<string, string | number | boolean | string[]>
    }

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

export const newMessageRun = (): MessageRun => ({
  inputId: uuidv7(),
  runId: undefined,
  textContents: new Set(),
})

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

/**
 * A chat's one stream of its session, followed from its first message to the chat's end:
 * each message's run (sendAndStream) reads the frames while it lasts, so a second message
 * neither reads the session again nor opens another stream.
 */
export class SessionFeed {
  readonly sessionId: string
  readonly #stop = new AbortController()
  #reader: { onFrame: (f: StreamFrame) => void; end: (end: FollowEnd) => void } | undefined
  #ended: FollowEnd | undefined

  private constructor(sessionId: string) {
    this.sessionId = sessionId
  }

  /** Follows the session from now on (its cursor read first: no snapshot to skip). */
  static async open(client: () => HearthClient, sessionId: string): Promise<SessionFeed> {
    const feed = new SessionFeed(sessionId)
    const { generation, sequence } = await cursorOf(client, sessionId)
    void followSession({
      client,
      sessionId,
      signal: feed.#stop.signal,
      onFrame: (f) => feed.#reader?.onFrame(f),
      after: { generation, seq: sequence },
    }).then((end) => {
      feed.#ended = end
      feed.#reader?.end(end)
    })
    return feed
  }

  /** Hands the frames to `onFrame` until `signal` aborts or the stream ends (deleted). */
  read(onFrame: (f: StreamFrame) => void, signal: AbortSignal): Promise<FollowEnd> {
    return new Promise((resolve) => {
      const end = (e: FollowEnd) => {
        this.#reader = undefined
        signal.removeEventListener('abort', aborted)
        resolve(e)
      }
      const aborted = () => end({ reason: 'aborted', cursor: undefined })
      if (this.#ended) return end(this.#ended)
      this.#reader = { onFrame, end }
      signal.addEventListener('abort', aborted, { once: true })
    })
  }

  close(): void {
    this.#stop.abort()
  }
}

async function cursorOf(client: () => HearthClient, sessionId: string) {
  const { body } = await client().call('sessions.get', {
    params: { session_id: sessionId },
    query: { tail: 0 },
  })
  return (body as { cursor: { generation: number; sequence: number } }).cursor
}

/**
 * Sends one message and prints its answer; resolves with the run's outcome. Its frames come
 * from `feed` when given (a chat's stream), else from a stream opened for this message.
 */
export async function sendAndStream(
  client: () => HearthClient,
  sessionId: string,
  text: string,
  out: Out,
  sent: MessageRun,
  approve: Approver,
  onRun: (runId: string, inputOrder: number) => void = () => {},
  onRunFrame?: (f: StreamFrame) => void,
  feed?: SessionFeed,
): Promise<{ outcome: string; problem: ProblemError['problem'] | null }> {
  const cursor = feed ? undefined : await cursorOf(client, sessionId)
  const stop = new AbortController()
  let result: { outcome: string; problem: ProblemError['problem'] | null } | undefined
  const tools = new ToolView(out)
  const calls = new Set<string>()
  /** Summaries of the calls that asked for approval, by call id. */
  const asked = new Map<string, string>()
  let approvals = Promise.resolve()
  const runFrames = new RunFrames(sent.inputId)
  const onFrame = (f: StreamFrame) => {
    const data = JSON.parse(f.data) as { payload?: Record<string, any> }
    const p = data.payload ?? {}
    if (onRunFrame && runFrames.takes(f.event, p)) onRunFrame(f)
    if (f.event === 'run.started' && (p.input_ids as string[]).includes(sent.inputId)) {
      sent.runId = p.run_id
      onRun(p.run_id, 0)
    } else if (f.event === 'output.started' && p.run_id === sent.runId && p.kind === 'text') {
      sent.textContents.add(p.content_id)
    } else if (f.event === 'output.delta' && sent.textContents.has(p.content_id)) {
      out.write(p.delta)
      tools.answered(p.delta)
    } else if (f.event === 'tool.started' && p.run_id === sent.runId) {
      calls.add(p.call_id)
      tools.started(p as never)
    } else if (f.event === 'tool.progress' && calls.has(p.call_id)) {
      tools.progress(p as never)
    } else if (f.event === 'tool.ended' && p.run_id === sent.runId) {
      // A denied call never started: its line comes from the question that denied it.
      if (!calls.has(p.call_id))
        tools.started({ call_id: p.call_id, name: '', summary: asked.get(p.call_id) })
      calls.delete(p.call_id)
      tools.ended(p as never)
    } else if (f.event === 'approval.requested' && p.run_id === sent.runId) {
      // One question at a time, in the order the run asked them.
      const request = p as ApprovalRequest
      asked.set(p.call_id, request.summary)
      approvals = approvals
        .then(() => answerApproval(client, sessionId, request, approve))
        .catch((err) => void process.stderr.write(`hearth: could not answer the approval: ${err.message}\n`))
    } else if (f.event === 'elicitation.requested' && p.run_id === sent.runId) {
      // In line with the approvals: one question at a time.
      const put = (body: InputBody) => submit(client, sessionId, uuidv7(), body)
      approvals = approvals
        .then(() => answerQuestion(p as Question, approve.elicit ?? declineUnasked, put))
        .catch(
          (err) => void process.stderr.write(`hearth: could not answer the MCP server: ${err.message}\n`),
        )
    } else if (f.event === 'run.ended' && p.run_id === sent.runId) {
      result = { outcome: p.outcome, problem: p.problem }
      stop.abort()
    }
  }
  const following = cursor
    ? followSession({
        client,
        sessionId,
        signal: stop.signal,
        onFrame,
        after: { generation: cursor.generation, seq: cursor.sequence },
      })
    : (feed as SessionFeed).read(onFrame, stop.signal)
  try {
    await submit(client, sessionId, sent.inputId, { kind: 'message', text })
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

export async function reportRunProblem(
  client: HearthClient,
  sessionId: string,
  problem: ProblemError['problem'],
) {
  const provider = await loginProviderFor(client, sessionId, problem)
  process.stderr.write(`hearth: ${problemText(new ProblemError(problem), provider)}\n`)
}

/**
 * Stops what this command sent: the run serving its input once known (sessions.interrupt,
 * with the input order read now), else the input itself while it waits (inputs.cancel).
 */
export async function stopMessageRun(
  client: HearthClient,
  sessionId: string,
  sent: MessageRun,
): Promise<void> {
  if (sent.runId !== undefined) {
    const { body } = await client.call('sessions.get', {
      params: { session_id: sessionId },
      query: { tail: 0 },
    })
    await client.call('sessions.interrupt', {
      params: { session_id: sessionId },
      body: { run_id: sent.runId, through_input_order: (body as { input_order: number }).input_order },
    })
    return
  }
  await client.call('inputs.cancel', { params: { session_id: sessionId, input_id: sent.inputId }, body: {} })
}
