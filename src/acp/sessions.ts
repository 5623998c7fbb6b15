// session/new, session/load, session/list, session/resume and session/close. The ACP session
// id is hearth's session id; the editor's `cwd` is a new session's workspace. A load sends
// the whole history as session/update notifications (the same mapping as live events,
// ./updates.ts), then follows the session live from the cursor the history was read at, so
// nothing is missed or sent twice between the two. Each reply carries the modes (approval
// policies) and config options (model, effort, mode); the commands and skills follow as
// `available_commands_update` once the editor has the session.
import { isAbsolute } from 'node:path'
import {
  type CloseSessionRequest,
  type CloseSessionResponse,
  type ListSessionsRequest,
  type ListSessionsResponse,
  type LoadSessionRequest,
  type LoadSessionResponse,
  type NewSessionRequest,
  type NewSessionResponse,
  RequestError,
  type ResumeSessionRequest,
  type ResumeSessionResponse,
  type SessionInfo,
} from '@agentclientprotocol/sdk'
import { v7 as uuidv7 } from 'uuid'
import type { HearthClient } from '../client/client.ts'
import { createSessionOnce } from '../client/create-session.ts'
import type { SessionRead, SessionSummary } from '../schemas/session-read.ts'
import { requireSignedIn } from './auth.ts'
import { sendAvailableCommands } from './commands.ts'
import { notFoundOr, requestErrorOf } from './configuration.ts'
import type { AcpContext } from './context.ts'
import { applyEditorServers, sessionServersOf } from './mcp-servers.ts'
import { configOptionsOfSession } from './models.ts'
import { modeState } from './modes.ts'
import { type Entry, type MappingState, newMappingState, updatesOfEntry } from './updates.ts'

/** Entries per history page read for a replay (the most a page holds). */
const PAGE = 200

/** Modes and config options of the session as it is now. */
async function sessionSetup(ctx: AcpContext, sessionId: string) {
  const { configuration, configOptions } = await configOptionsOfSession(ctx.client, sessionId)
  return { modes: await modeState(ctx.client, configuration), configOptions }
}

/** The commands once the reply is on its way: the editor must know the session first. */
function announceCommands(ctx: AcpContext, sessionId: string): void {
  setTimeout(() => void sendAvailableCommands(ctx, sessionId), 0)
}

export async function newSession(ctx: AcpContext, params: NewSessionRequest): Promise<NewSessionResponse> {
  if (!isAbsolute(params.cwd))
    throw RequestError.invalidParams({ cwd: params.cwd }, 'cwd must be an absolute path')
  sessionServersOf(params.mcpServers ?? []) // a server the daemon would refuse fails before the session is made
  await requireSignedIn(ctx)
  const sessionId = uuidv7()
  try {
    await createSessionOnce(sessionId, { kind: 'new', workspace: params.cwd }, { client: () => ctx.client })
  } catch (err) {
    throw requestErrorOf(err)
  }
  await applyEditorServers(ctx, sessionId, params.mcpServers)
  await ctx.live.follow(sessionId)
  const setup = await sessionSetup(ctx, sessionId)
  announceCommands(ctx, sessionId)
  return { sessionId, ...setup }
}

async function readSession(client: HearthClient, sessionId: string, tail: number): Promise<SessionRead> {
  try {
    const { body } = await client.call('sessions.get', { params: { session_id: sessionId }, query: { tail } })
    return body as SessionRead
  } catch (err) {
    throw notFoundOr(err, sessionId)
  }
}

/** An entry's text whole: a read cuts texts past 16,384 characters (`truncated`). */
async function wholeEntry(client: HearthClient, sessionId: string, entry: Entry): Promise<Entry> {
  if (entry.content.truncated !== true) return entry
  let text = ''
  let next: string | undefined
  do {
    const { body } = await client.call('history.entry', {
      params: { session_id: sessionId, entry_id: entry.id },
      query: next ? { next } : {},
    })
    text += body.text
    next = body.next ?? undefined
  } while (next)
  return { ...entry, content: { ...entry.content, text, truncated: false } }
}

/** Every entry of the history up to the read's, oldest first (older pages before the read's tail). */
async function historyOf(client: HearthClient, read: SessionRead): Promise<Entry[]> {
  const pages: Entry[][] = [read.history.items as Entry[]]
  let older = read.history.older
  while (older) {
    const { body } = await client.call('history.list', {
      params: { session_id: read.id },
      query: { next: older, limit: PAGE },
    })
    pages.unshift(body.items as Entry[])
    older = body.older
  }
  const entries = pages.flat().sort((a, b) => Number(a.id) - Number(b.id))
  return Promise.all(entries.map((e) => wholeEntry(client, read.id, e)))
}

/** Sends the history as session/update notifications, in order, a page at a time. */
async function replay(ctx: AcpContext, read: SessionRead): Promise<MappingState> {
  const state = newMappingState(read.workspace)
  const entries = await historyOf(ctx.client, read)
  for (let i = 0; i < entries.length; i += PAGE) {
    const updates = entries.slice(i, i + PAGE).flatMap((e) => updatesOfEntry(e, state))
    if (updates.length > 0) await ctx.live.send(read.id, updates)
  }
  return state
}

/**
 * An approval the session already waited for when the editor opened it: asked as one
 * requested now (its call's arguments from the replayed history, when the editor got it).
 */
function askWaiting(ctx: AcpContext, read: SessionRead, replayed?: MappingState): void {
  const reason = read.status.blocking_reason
  if (reason?.kind !== 'approval') return
  const args = replayed?.calls.get(reason.call_id)?.args ?? {}
  ctx.live.askApproval(read.id, { ...reason, arguments: JSON.stringify(args) })
}

/** A running turn's output as the read saw it (its `snapshot` fixes where the read was). */
interface ActiveOutput {
  content_id: string
  kind: string
  snapshot: string
}

/** The text a running turn streamed up to the read; what follows comes live. */
async function replayActiveOutput(ctx: AcpContext, read: SessionRead): Promise<ActiveOutput[]> {
  const items = read.active_output as ActiveOutput[]
  for (const item of items) {
    let text = ''
    let next: string | undefined
    try {
      do {
        const { body } = await ctx.client.call('sessions.active_output', {
          params: { session_id: read.id, content_id: item.content_id },
          query: { snapshot: item.snapshot, ...(next ? { next } : {}) },
        })
        text += body.text
        next = body.next ?? undefined
      } while (next)
    } catch (err) {
      ctx.log(
        `hearth acp: the running answer of session ${read.id} could not be read: ${(err as Error).message}`,
      )
    }
    const kind = item.kind === 'reasoning' ? 'agent_thought_chunk' : 'agent_message_chunk'
    if (text) await ctx.live.send(read.id, [{ sessionUpdate: kind, content: { type: 'text', text } }])
  }
  return items
}

export async function loadSession(ctx: AcpContext, params: LoadSessionRequest): Promise<LoadSessionResponse> {
  // One read gives the newest entries, the running turn's output and the cursor they are current at.
  const read = await readSession(ctx.client, params.sessionId, PAGE)
  await applyEditorServers(ctx, read.id, params.mcpServers)
  const replayed = await replay(ctx, read)
  const running = await replayActiveOutput(ctx, read)
  await ctx.live.follow(read.id, read.cursor)
  askWaiting(ctx, read, replayed)
  // The running turn's next deltas are of outputs the follower has not seen start.
  const state = ctx.live.stateOf(read.id)
  for (const o of running) state?.outputs.set(o.content_id, o.kind === 'reasoning' ? 'reasoning' : 'text')
  const setup = await sessionSetup(ctx, read.id)
  announceCommands(ctx, read.id)
  return setup
}

/** Like a load without the history: the editor already shows it. */
export async function resumeSession(
  ctx: AcpContext,
  params: ResumeSessionRequest,
): Promise<ResumeSessionResponse> {
  const read = await readSession(ctx.client, params.sessionId, 0)
  await applyEditorServers(ctx, read.id, params.mcpServers)
  await ctx.live.follow(read.id, read.cursor)
  askWaiting(ctx, read)
  const setup = await sessionSetup(ctx, read.id)
  announceCommands(ctx, read.id)
  return setup
}

/** Stops following; the session, its runs and its approvals go on in the daemon. */
export async function closeSession(
  ctx: AcpContext,
  params: CloseSessionRequest,
): Promise<CloseSessionResponse> {
  await readSession(ctx.client, params.sessionId, 0)
  ctx.live.stop(params.sessionId)
  await applyEditorServers(ctx, params.sessionId, [])
  return {}
}

const infoOf = (s: SessionSummary): SessionInfo => ({
  sessionId: s.id,
  cwd: s.workspace,
  title: s.name || s.automatic_name || null,
  updatedAt: s.activity_at,
})

/** The root sessions, latest activity first, of the editor's `cwd` when it names one. */
export async function listSessions(
  ctx: AcpContext,
  params: ListSessionsRequest,
): Promise<ListSessionsResponse> {
  try {
    const { body } = await ctx.client.call('sessions.list', {
      query: {
        ...(params.cwd ? { workspace: params.cwd } : {}),
        ...(params.cursor ? { next: params.cursor } : {}),
        limit: 50,
      },
    })
    return { sessions: body.items.map(infoOf), nextCursor: body.next }
  } catch (err) {
    throw requestErrorOf(err)
  }
}
