// Driving a hearth session as a client does, for the turn section: a Responses upstream in
// this process (on the bench's clock), the session's stream held open, a kept-alive
// connection for the inputs (bench/lib.ts heldConnection: a request is one write, its time
// is its first byte), one plain turn, one run of shell round trips.
import { statSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { v7 as uuidv7 } from 'uuid'
import type { TurnTimes } from './baselines.ts'
import {
  type BenchDaemon,
  type heldConnection,
  homeWithConfig,
  responsesCall,
  responsesText,
  sessionStreamRequest,
  treeSchedstat,
} from './lib.ts'

/** The command of every shell call the upstream asks for. */
export const COMMAND = 'echo hi'
/** How much newer than state.db the WAL may be once checkpointed: its restart right after. */
const WAL_RESTART_MS = 20
/** The longest wait for the daemon to go quiet after a turn (it takes ~0.8 s). */
const QUIET_LIMIT_MS = 3000

interface Reply {
  at: number
  lastByteAt: number
  /** Resolves once the last byte is written. */
  written: Promise<void>
}

/**
 * A Responses upstream: each request takes the next reply of `script` (a shell call or a
 * text); a text's last frame waits for `gate` when one is set. Notes each request's arrival
 * and its reply's last byte, and the gap from a call's last byte to the next request.
 */
export async function upstream() {
  const state = {
    script: [] as ('call' | 'text')[],
    gate: null as Promise<unknown> | null,
    replies: [] as Reply[],
    gaps: [] as number[],
  }
  let lastWasCall = false
  let n = 0
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const reply = { at: performance.now(), lastByteAt: 0 } as Reply
    const previous = state.replies.at(-1)
    // The previous reply's end callback has run by now; waiting on it makes sure.
    if (lastWasCall && previous)
      void previous.written.then(() => state.gaps.push(reply.at - previous.lastByteAt))
    state.replies.push(reply)
    const kind = state.script.shift() ?? 'text'
    lastWasCall = kind === 'call'
    const id = `r${n++}`
    let wrote!: () => void
    reply.written = new Promise<void>((r) => {
      wrote = r
    })
    const end = (last: string) =>
      res.end(last, () => {
        reply.lastByteAt = performance.now()
        wrote()
      })
    req.resume()
    req.on('end', async () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      const frames =
        kind === 'call'
          ? responsesCall(id, `call_${id}`, 'shell', { command: COMMAND })
          : responsesText(id, 'ok')
      for (const f of frames.slice(0, -1)) res.write(f)
      if (kind === 'text' && state.gate) await state.gate
      end(frames.at(-1) as string)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    state,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => server.close(),
  }
}
export type Upstream = Awaited<ReturnType<typeof upstream>>

/** A held session stream: resolves each waiter with the arrival time and payload of its event. */
export function sessionStream(d: BenchDaemon, sid: string) {
  const waiters: { event: string; resolve: (v: { at: number; payload: any }) => void }[] = []
  const req = sessionStreamRequest(d, sid)
  req.on('response', (res) => {
    let buf = ''
    res.setEncoding('utf8')
    res.on('data', (chunk: string) => {
      const at = performance.now()
      buf += chunk
      for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
        const f = buf.slice(0, i)
        buf = buf.slice(i + 2)
        const event = /^event: (.*)$/m.exec(f)?.[1]
        const k = waiters.findIndex((w) => w.event === event)
        if (k < 0) continue
        const data = /^data: (.*)$/m.exec(f)?.[1]
        waiters.splice(k, 1)[0].resolve({ at, payload: data ? JSON.parse(data).payload : null })
      }
    })
  })
  req.on('error', () => {})
  req.end()
  return {
    next: (event: string) =>
      new Promise<{ at: number; payload: any }>((resolve) => waiters.push({ event, resolve })),
    close: () => req.destroy(),
  }
}
export type Stream = ReturnType<typeof sessionStream>

/** The daemon, its upstream, the held connection and what every request carries. */
export interface Bench {
  d: BenchDaemon
  up: Upstream
  conn: ReturnType<typeof heldConnection>
  workspace: string
}

const headersOf = (d: BenchDaemon) => ({
  authorization: `Bearer ${d.token}`,
  'content-type': 'application/json',
})

export async function newSession(b: Bench): Promise<{ sid: string; stream: Stream }> {
  const sid = uuidv7()
  const r = await b.conn.send(
    'PUT',
    `/sessions/${sid}`,
    { ...headersOf(b.d), 'if-none-match': '*' },
    JSON.stringify({ kind: 'new', workspace: b.workspace }),
  )
  if (r.status !== 201) throw new Error(`session: ${r.status} ${r.body}`)
  const stream = sessionStream(b.d, sid)
  await stream.next('snapshot')
  return { sid, stream }
}

/**
 * Waits until the daemon has checkpointed its writes (state.db written after its WAL), as
 * it has by the time a person sends the next message: its after-turn work (the search
 * index, then the checkpoint ~0.8 s after the last write) never overlaps a measured turn,
 * and each measured input finds the WAL to restart, as a user's does.
 */
export async function quiet(d: BenchDaemon): Promise<void> {
  const db = join(d.home, 'state.db')
  const until = performance.now() + QUIET_LIMIT_MS
  // The checkpoint's last act restarts the WAL (one frame, within a millisecond of the
  // copy: src/store/checkpoints.ts), so the WAL may be a little newer than state.db.
  const behind = () => statSync(`${db}-wal`).mtimeMs - statSync(db).mtimeMs > WAL_RESTART_MS
  while (performance.now() < until && behind()) await sleep(10)
  await sleep(30) // the checkpoint's fsync
}

/** The daemon's and kernels' CPU time, and their wait for a core, over a stretch. */
export interface Sched {
  cpuMs: number
  waitMs: number
}

function since(before: Sched, pid: number): Sched {
  const now = treeSchedstat(pid)
  return { cpuMs: now.cpuMs - before.cpuMs, waitMs: now.waitMs - before.waitMs }
}

/**
 * One plain turn: the input PUT, the upstream's request, the first delta, run.ended; and
 * the CPU the daemon and its kernels spent from just before the PUT to run.ended, and
 * their wait for a core.
 */
export async function plainTurn(b: Bench, sid: string, stream: Stream): Promise<TurnTimes & Sched> {
  const sched = treeSchedstat(b.d.pid)
  const first = stream.next('output.delta')
  const ended = stream.next('run.ended')
  b.up.state.gate = first
  const before = b.up.state.replies.length
  const body = JSON.stringify({ kind: 'message', text: 'hi', client_id: 'bench' })
  const r = await b.conn.send('PUT', `/sessions/${sid}/inputs/${uuidv7()}`, headersOf(b.d), body)
  if (r.status !== 202) throw new Error(`input: ${r.status} ${r.body}`)
  const which = await Promise.race([first.then(() => 'delta'), ended.then(() => 'ended')])
  if (which === 'ended')
    throw new Error(`the run ended without output: ${JSON.stringify((await ended).payload)}`)
  const [f, e] = [await first, await ended]
  const { cpuMs, waitMs } = since(sched, b.d.pid)
  const reply = b.up.state.replies[before]
  await reply.written
  b.up.state.gate = null
  return {
    toUpstream: reply.at - r.sentAt,
    accepted: r.answeredAt - r.sentAt,
    firstToken: f.at - r.sentAt,
    turnEnd: e.at - reply.lastByteAt,
    cpuMs,
    waitMs,
  }
}

/**
 * One run of `calls` shell round trips then an answer: from its first upstream request to
 * run.ended, each call's own time as the kernel measured it (tool.ended, whole ms), and the
 * CPU of the daemon and its kernels over the run (a command's own CPU is not counted: it
 * has exited).
 */
export async function toolRun(b: Bench, sid: string, stream: Stream, calls: number) {
  b.up.state.script = [...Array(calls).fill('call'), 'text']
  const sched = treeSchedstat(b.d.pid)
  const results = Array.from({ length: calls }, () => stream.next('tool.ended'))
  const ended = stream.next('run.ended')
  const before = b.up.state.replies.length
  const body = JSON.stringify({ kind: 'message', text: 'run it', client_id: 'bench' })
  const r = await b.conn.send('PUT', `/sessions/${sid}/inputs/${uuidv7()}`, headersOf(b.d), body)
  if (r.status !== 202) throw new Error(`input: ${r.status} ${r.body}`)
  const e = await ended
  const { cpuMs, waitMs } = since(sched, b.d.pid)
  if (b.up.state.replies.length - before !== calls + 1)
    throw new Error('the run did not make every round trip')
  const meta = (await Promise.all(results)).map((x) => {
    if (x.payload.outcome !== 'ok') throw new Error(`shell: ${JSON.stringify(x.payload)}`)
    return x.payload.meta as { duration_ms: number; sandbox: string }
  })
  return { span: e.at - b.up.state.replies[before].at, meta, cpuMs, waitMs }
}

export function configHome(up: Upstream): string {
  return homeWithConfig({
    providers: {
      default_profile: 'b',
      profiles: { b: { endpoint: up.url, protocol: 'responses', model: 'm' } },
    },
    tools: { approval_policy: 'auto' },
  })
}
