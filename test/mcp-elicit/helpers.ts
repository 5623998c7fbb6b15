// Shared steps of the elicitation tests: a daemon whose session runs the asking server
// (asking-server.ts) through its kernel, the fake model calling its tools, answers as inputs,
// and what reached the server (its JSON-lines log) and the store.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { v7 as uuidv7 } from 'uuid'
import { type RawResponse, ROOT, type TestDaemon, until } from '../helpers/daemon.ts'
import { putInput, waitSession } from '../inputs/helpers.ts'
import { change } from '../settings/helpers.ts'
import { type AgentSetup, startAgent } from '../tools/agent-helpers.ts'

export const ASKING_SERVER = join(ROOT, 'test/mcp-elicit/asking-server.ts')

export interface AskSetup extends AgentSetup {
  /** The server's answers log, and the file whose existence makes `ask_later` ask. */
  log: string
  trigger: string
}

export async function startAsking(server: Record<string, unknown> = {}, home?: string): Promise<AskSetup> {
  const s = await startAgent({ tools: { approval_policy: 'auto' }, home })
  const dir = mkdtempSync(join(tmpdir(), 'hearth-ask-'))
  const log = join(dir, 'answers.jsonl')
  const trigger = join(dir, 'ask-now')
  await configureAsker(s.d, log, trigger, server)
  return { ...s, log, trigger }
}

export function configureAsker(
  d: TestDaemon,
  log: string,
  trigger: string,
  server: Record<string, unknown> = {},
): Promise<unknown> {
  return change(d, 'mcp', {
    servers: {
      asker: {
        command: process.execPath,
        args: [ASKING_SERVER],
        env: { ASK_LOG: log, ASK_TRIGGER: trigger },
        startup_timeout_ms: 30_000,
        ...server,
      },
    },
  })
}

/** The answers that reached the server so far. */
export function answersOf(log: string): any[] {
  if (!existsSync(log)) return []
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
}

/** Waits for the server's answer from `tool`. */
export function answerReached(log: string, tool: string, ms = 20_000): Promise<any> {
  return until(`the server's answer to ${tool}`, () => answersOf(log).find((a) => a.tool === tool), ms, 20)
}

export function elicitationRows(home: string, sid: string): any[] {
  const db = new Database(join(home, 'state.db'), { readonly: true })
  try {
    return db.prepare('SELECT * FROM elicitations WHERE session_id = ? ORDER BY created_at').all(sid)
  } finally {
    db.close()
  }
}

/** Waits until the session's run waits for an answer to a server; returns the blocking reason. */
export async function waitAsked(d: TestDaemon, sid: string, ms = 30_000): Promise<any> {
  const s = await waitSession(d, sid, (x) => x.status.blocking_reason?.kind === 'elicitation', ms)
  return s.status.blocking_reason
}

export function reply(
  d: TestDaemon,
  sid: string,
  requestId: string,
  action: 'accept' | 'decline' | 'cancel',
  content?: Record<string, unknown>,
  inputId = uuidv7(),
): Promise<RawResponse & { inputId: string }> {
  const body = {
    kind: 'elicitation',
    request_id: requestId,
    action,
    client_id: 'test',
    ...(content ? { content } : {}),
  }
  return putInput(d, sid, body, inputId)
}
