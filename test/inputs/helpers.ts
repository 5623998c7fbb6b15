// Shared steps of the inputs tests: a daemon whose default profile points at a fake
// upstream, message PUTs, and waiting for a session to settle.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { v7 as uuidv7 } from 'uuid'
import { FakeOpenAIUpstream } from '../fakes/openai-upstream.ts'
import { type RawResponse, startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'

export interface Setup {
  d: TestDaemon
  upstream: FakeOpenAIUpstream
}

/** Writes config.json with profile `fake` (default) at the upstream, then starts a daemon. */
export async function startWithUpstream(
  opts: {
    home?: string
    protocol?: 'responses' | 'chat_completions'
    upstream?: FakeOpenAIUpstream
    env?: Record<string, string>
    /** Extra fields of the `fake` profile (stream limits, …). */
    profile?: Record<string, unknown>
    /** Settings groups besides `providers` written to config.json (`tools`, …). */
    settings?: Record<string, unknown>
  } = {},
): Promise<Setup> {
  const upstream = opts.upstream ?? (await FakeOpenAIUpstream.start())
  const home = opts.home ?? tempHome()
  mkdirSync(home, { recursive: true })
  const profile = {
    endpoint: `${upstream.url}/v1`,
    protocol: opts.protocol ?? 'responses',
    model: 'fake-model',
    ...opts.profile,
  }
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({ ...opts.settings, providers: { default_profile: 'fake', profiles: { fake: profile } } }),
  )
  const d = await startDaemon({ home, env: opts.env })
  return { d, upstream }
}

export const message = (text: string, extra: Record<string, unknown> = {}) => ({
  kind: 'message',
  text,
  client_id: 'draft-1',
  ...extra,
})

export function putInput(
  d: TestDaemon,
  sessionId: string,
  body: unknown,
  inputId = uuidv7(),
): Promise<RawResponse & { inputId: string }> {
  return d
    .request({
      method: 'PUT',
      path: `/sessions/${sessionId}/inputs/${inputId}`,
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })
    .then((r) => Object.assign(r, { inputId }))
}

export async function getSession(d: TestDaemon, sessionId: string): Promise<any> {
  const r = await d.request({ path: `/sessions/${sessionId}` })
  if (r.status !== 200) throw new Error(`read ${sessionId}: ${r.status} ${r.text()}`)
  return r.json()
}

/** Polls until `check` holds for the session (or throws after `ms`). */
export async function waitSession(d: TestDaemon, sessionId: string, check: (s: any) => boolean, ms = 30_000) {
  const deadline = Date.now() + ms
  for (;;) {
    const s = await getSession(d, sessionId)
    if (check(s)) return s
    if (Date.now() > deadline) throw new Error(`session never settled: ${JSON.stringify(s.status)}`)
    await sleep(20)
  }
}

export const idle = (s: any) => s.status.phase === 'idle' && s.pending_inputs.length === 0

export async function post(d: TestDaemon, path: string, body: unknown): Promise<RawResponse> {
  return d.request({
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

/** Polls until the upstream has received `n` requests. */
export async function upstreamRequests(upstream: FakeOpenAIUpstream, n: number, ms = 30_000) {
  const deadline = Date.now() + ms
  while (upstream.requests.length < n) {
    if (Date.now() > deadline)
      throw new Error(`the upstream got ${upstream.requests.length} requests, not ${n}`)
    await sleep(10)
  }
}

/** Child pids of a process (its kernels), from /proc. */
export function childrenOf(pid: number): number[] {
  const out: number[] = []
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim()
    if (text) out.push(...text.split(/\s+/).map(Number))
  }
  return out
}

/**
 * Kills a process's children outright (its kernels crash). A child that ended between the
 * listing and the kill (a workspace snapshot's git) is passed over.
 */
export function killChildren(pid: number): void {
  for (const child of childrenOf(pid)) {
    try {
      process.kill(child, 'SIGKILL')
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err
    }
  }
}

/** Whether a pid is still a live (not zombie) process. */
export function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}
