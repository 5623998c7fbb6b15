// Shared steps of the agent-loop tests: a daemon whose default profile points at a fake
// upstream, with a temp workspace and the `tools` settings a test asks for; a message run
// to its end; the history; approval inputs.
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before } from 'node:test'
import { v7 as uuidv7 } from 'uuid'
import { FakeOpenAIUpstream } from '../fakes/openai-upstream.ts'
import { type RawResponse, startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'
import { getSession, idle, message, putInput, waitSession } from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'

export interface AgentSetup {
  d: TestDaemon
  upstream: FakeOpenAIUpstream
  home: string
  workspace: string
}

export interface AgentOptions {
  protocol?: 'responses' | 'chat_completions'
  tools?: Record<string, unknown>
  home?: string
  workspace?: string
  upstream?: FakeOpenAIUpstream
  env?: Record<string, string>
}

export function writeConfig(home: string, upstream: FakeOpenAIUpstream, opts: AgentOptions): void {
  const profile = {
    endpoint: `${upstream.url}/v1`,
    protocol: opts.protocol ?? 'responses',
    model: 'fake-model',
  }
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({
      providers: { default_profile: 'fake', profiles: { fake: profile } },
      tools: { approval_policy: 'auto', ...opts.tools },
    }),
  )
}

export async function startAgent(opts: AgentOptions = {}): Promise<AgentSetup> {
  const upstream = opts.upstream ?? (await FakeOpenAIUpstream.start())
  const home = opts.home ?? tempHome()
  mkdirSync(home, { recursive: true })
  const workspace = opts.workspace ?? realpathSync(mkdtempSync(join(tmpdir(), 'hearth-ws-')))
  writeConfig(home, upstream, opts)
  const d = await startDaemon({ home, env: opts.env })
  return { d, upstream, home, workspace }
}

/**
 * startAgent for the calling suite: started before its tests, stopped (daemon and upstream)
 * after them. The tests read it through the function returned.
 */
export function agentPerSuite(opts: AgentOptions = {}): () => AgentSetup {
  let s: AgentSetup | undefined
  before(async () => {
    s = await startAgent(opts)
  })
  after(async () => {
    await s?.d.stop()
    await s?.upstream.close()
  })
  return () => {
    if (!s) throw new Error('the agent starts before the suite')
    return s
  }
}

export async function newSession(s: AgentSetup, extra: Record<string, unknown> = {}): Promise<string> {
  return createSession(s.d, { kind: 'new', workspace: s.workspace, ...extra })
}

/** Sends a message and waits until the session is idle again; returns the session read. */
export async function runMessage(s: AgentSetup, sid: string, text: string, ms = 15_000): Promise<any> {
  const r = await putInput(s.d, sid, message(text))
  if (r.status !== 202) throw new Error(`input: ${r.status} ${r.text()}`)
  return waitSession(s.d, sid, idle, ms)
}

export async function historyOf(d: TestDaemon, sid: string): Promise<any[]> {
  const r = await d.request({ path: `/sessions/${sid}/history?limit=200` })
  if (r.status !== 200) throw new Error(`history: ${r.status} ${r.text()}`)
  return r.json().items
}

export function approve(
  d: TestDaemon,
  sid: string,
  requestId: string,
  decision: 'allow' | 'deny',
  remember: 'once' | 'session' = 'once',
  inputId = uuidv7(),
): Promise<RawResponse & { inputId: string }> {
  return putInput(
    d,
    sid,
    { kind: 'approval', request_id: requestId, decision, remember, client_id: 'test' },
    inputId,
  )
}

/** Waits until the session's run waits for an approval; returns the blocking reason. */
export async function waitBlocked(d: TestDaemon, sid: string, ms = 10_000): Promise<any> {
  const s = await waitSession(d, sid, (x) => x.status.blocking_reason !== null, ms)
  return s.status.blocking_reason
}

export { getSession }
