// Kernels: how fast a session's first turn starts and what the process tree weighs. An
// upstream in this process speaks the Responses stream and notes when it wrote its first
// delta (same clock as the SSE reader here). Memory is PSS (/proc/PID/smaps_rollup, shared
// pages split among the processes sharing them) summed over the daemon and its kernels.
//
// - first token on a new session: from sending the input to the session stream showing the
//   first delta, less the upstream's own time from the request to its first delta, for the first session of a fresh daemon (its spare warmed; p50 of 5
//   daemons) and for new sessions of a running daemon (p50 of 20); target ≤ 10 ms;
// - first token on a used session: the same on a session's later turns (p50 of 20);
// - just started: the tree 1.5 s after ready, its spare kernel warmed; PSS ≤ 87 MB (RSS shown
//   beside it: pages of Node's binary shared with other Node processes on the machine lower
//   the PSS, never the RSS);
// - idle: the tree after sessions have run and everything idle was released (the bench
//   shortens the idle thresholds through HEARTH_KERNEL_IDLE_MS and
//   HEARTH_KERNEL_SPARE_IDLE_MS; by default the same happens after 30 s and 2 minutes, so
//   well within 5 minutes); target ≤ 75 MB;
// - 20 sessions streaming at once (600 deltas each, paced over ~3 s): peak; ≤ 300 MB;
// - after a hundred short sessions (each keeping its kernel 30 s, the default), one
//   session's 20,000-delta reply to a slow reader (one read per 20 ms): peak; ≤ 120 MB;
// - idle again after the 20 sessions (the same short thresholds); ≤ 75 MB.
import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { v7 as uuidv7 } from 'uuid'
import {
  type BenchDaemon,
  descendantsOf,
  homeWithConfig,
  mb,
  median,
  ms,
  type Row,
  type Section,
  sampleTreePss,
  spawnDaemon,
  treePss,
} from '../lib.ts'
import { call, follow } from './runs.ts'

/** How long a fresh daemon is left to fork and warm its spare before the first session. */
const SPARE_SETTLE_MS = 1500

/** Short idle thresholds, so that "after the daemon went idle" comes within seconds. */
const SHORT_IDLE = { HEARTH_KERNEL_IDLE_MS: '1000', HEARTH_KERNEL_SPARE_IDLE_MS: '3000' }
/** Long enough for SHORT_IDLE to release everything; a loaded machine may need longer. */
const IDLE_WAIT_MS = 4500
/** How long past IDLE_WAIT_MS the bench waits for the kernels to be gone before reading. */
const IDLE_GRACE_MS = 6000

/** Resident set of a process and all its descendants (shared pages counted in each). */
function treeRss(pid: number): number {
  let bytes = 0
  for (const p of [pid, ...descendantsOf(pid)]) {
    try {
      const rollup = readFileSync(`/proc/${p}/smaps_rollup`, 'utf8')
      bytes += Number(/^Rss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) * 1024
    } catch {
      // the process ended between listing and reading
    }
  }
  return bytes
}

/** The tree once only the daemon is left, or as it is after the grace period. */
async function settledIdle(pid: number) {
  await sleep(IDLE_WAIT_MS)
  const until = performance.now() + IDLE_GRACE_MS
  while (treePss(pid).processes > 1 && performance.now() < until) await sleep(100)
  return treePss(pid)
}

/** A Responses upstream; each reply has `deltas` deltas, `perTick` written every `tickMs`. */
async function pacedUpstream() {
  const state = {
    deltas: 1,
    perTick: Number.POSITIVE_INFINITY,
    tickMs: 5,
    /** When each request arrived and when its first delta was written. */
    turns: [] as { requestAt: number; firstAt: number }[],
  }
  const frame = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`
  const delta = (i: number) =>
    frame({
      type: 'response.output_text.delta',
      item_id: 'm',
      output_index: 0,
      content_index: 0,
      delta: `w${i} `,
    })
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const t = { requestAt: performance.now(), firstAt: 0 }
    state.turns.push(t)
    req.resume()
    req.on('end', async () => {
      const { deltas, perTick, tickMs } = state
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(frame({ type: 'response.created', response: { id: 'r' } }))
      res.write(
        frame({ type: 'response.output_item.added', output_index: 0, item: { id: 'm', type: 'message' } }),
      )
      for (let i = 0; i < deltas; i++) {
        if (i === 0) t.firstAt = performance.now()
        else if (i % perTick === 0) await sleep(tickMs)
        if (res.destroyed) return
        res.write(delta(i))
      }
      res.end(
        frame({
          type: 'response.completed',
          response: {
            id: 'r',
            status: 'completed',
            output: [],
            usage: { input_tokens: 1, output_tokens: deltas },
          },
        }),
      )
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    state,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => server.close(),
  }
}

type Upstream = Awaited<ReturnType<typeof pacedUpstream>>

function homeFor(up: Upstream): string {
  const home = homeWithConfig({
    providers: {
      default_profile: 'b',
      profiles: { b: { endpoint: up.url, protocol: 'responses', model: 'm' } },
    },
  })
  return home
}

async function newSession(d: BenchDaemon): Promise<string> {
  const sid = uuidv7()
  const r = await call(d, 'PUT', `/sessions/${sid}`, { kind: 'new', workspace: d.home })
  if (r.status !== 201) throw new Error(`session: ${r.status} ${JSON.stringify(r.json)}`)
  return sid
}

/** One turn; resolves with when the input was sent and the stream's first delta and run.ended. */
async function turn(d: BenchDaemon, sid: string, s: ReturnType<typeof follow>) {
  const first = s.next('output.delta')
  const ended = s.next('run.ended')
  const sent = performance.now()
  const r = await call(d, 'PUT', `/sessions/${sid}/inputs/${uuidv7()}`, {
    kind: 'message',
    text: 'go',
    client_id: 'b',
  })
  if (r.status !== 202) throw new Error(`input: ${r.status} ${JSON.stringify(r.json)}`)
  return { sent, first: await first, ended: await ended }
}

/**
 * From sending the input to the first delta on the stream, less the upstream's own time
 * from receiving the request to writing its first delta: what hearth adds to a first token.
 */
function added(t: { sent: number; first: number }, up: Upstream): number {
  const u = up.state.turns.at(-1) as { requestAt: number; firstAt: number }
  return t.first - t.sent - (u.firstAt - u.requestAt)
}

/** First token over the upstream's own first byte, on a session that has not run before. */
async function firstOfNewSession(d: BenchDaemon, up: Upstream): Promise<number> {
  const sid = await newSession(d)
  const s = follow(d, sid)
  await sleep(20) // the stream is open
  const t = await turn(d, sid, s)
  s.close()
  return added(t, up)
}

async function firstTokens(up: Upstream) {
  up.state.deltas = 1
  const freshDaemon: number[] = []
  for (let i = 0; i < 5; i++) {
    const d = await spawnDaemon(homeFor(up))
    try {
      await sleep(SPARE_SETTLE_MS)
      freshDaemon.push(await firstOfNewSession(d, up))
    } finally {
      await d.stop()
    }
  }
  const d = await spawnDaemon(homeFor(up))
  try {
    await sleep(SPARE_SETTLE_MS)
    const running: number[] = []
    for (let i = 0; i < 21; i++) {
      const added = await firstOfNewSession(d, up)
      if (i > 0) running.push(added)
    }
    const sid = await newSession(d)
    const s = follow(d, sid)
    await sleep(20)
    const used: number[] = []
    for (let i = 0; i < 21; i++) {
      const t = await turn(d, sid, s)
      if (i > 0) used.push(added(t, up))
    }
    s.close()
    return { freshDaemon: median(freshDaemon), running: median(running), used: median(used) }
  } finally {
    await d.stop()
  }
}

/** The tree once every session has idled out (short thresholds set for the bench). */
async function idle(up: Upstream) {
  up.state.deltas = 50
  const d = await spawnDaemon(homeFor(up), { env: SHORT_IDLE })
  try {
    await sleep(SPARE_SETTLE_MS)
    const started = treePss(d.pid)
    const startedRss = treeRss(d.pid)
    for (let i = 0; i < 10; i++) await firstOfNewSession(d, up)
    return { started, startedRss, idle: await settledIdle(d.pid) }
  } finally {
    await d.stop()
  }
}

async function concurrent(up: Upstream) {
  Object.assign(up.state, { deltas: 600, perTick: 20, tickMs: 100 })
  const d = await spawnDaemon(homeFor(up), { env: SHORT_IDLE })
  try {
    await sleep(SPARE_SETTLE_MS)
    const sids = await Promise.all(Array.from({ length: 20 }, () => newSession(d)))
    const streams = sids.map((sid) => follow(d, sid))
    await sleep(50)
    const sampler = sampleTreePss(d.pid)
    const t0 = performance.now()
    const turns = await Promise.all(sids.map((sid, i) => turn(d, sid, streams[i])))
    const peak = sampler.stop()
    for (const s of streams) s.close()
    // The upstream alone takes 29 ticks of 100 ms per reply.
    const lastEndedMs = Math.max(...turns.map((t) => t.ended)) - t0
    return { peak, lastEndedMs, idleAfter: await settledIdle(d.pid) }
  } finally {
    await d.stop()
    Object.assign(up.state, { perTick: Number.POSITIVE_INFINITY })
  }
}

/** A hundred short sessions (each keeps its kernel, as by default, 30 s), then the slow reader. */
async function slowReader(up: Upstream) {
  const d = await spawnDaemon(homeFor(up))
  try {
    await sleep(SPARE_SETTLE_MS)
    up.state.deltas = 5
    for (let i = 0; i < 100; i++) await firstOfNewSession(d, up)
    const before = treePss(d.pid)
    up.state.deltas = 20_000
    const sid = await newSession(d)
    const s = follow(d, sid, 20)
    await sleep(50)
    const sampler = sampleTreePss(d.pid)
    await turn(d, sid, s)
    const peak = sampler.stop()
    s.close()
    return { before, peak }
  } finally {
    await d.stop()
  }
}

const tree = (p: { bytes: number; processes: number }) => `${mb(p.bytes)} (${p.processes} processes)`

export const kernels: Section = {
  name: 'kernels',
  description: 'first token on new and used sessions, PSS of the process tree idle and under load',
  async run(): Promise<Row[]> {
    const up = await pacedUpstream()
    try {
      const first = await firstTokens(up)
      const rest = await idle(up)
      const many = await concurrent(up)
      const slow = await slowReader(up)
      return [
        {
          figure: 'first token, first session of a fresh daemon, over the upstream (p50 of 5)',
          measured: ms(first.freshDaemon, 2),
          target: '≤ 10 ms',
          ok: first.freshDaemon <= 10,
        },
        {
          figure: 'first token, new session of a running daemon, over the upstream (p50 of 20)',
          measured: ms(first.running, 2),
          target: '≤ 10 ms',
          ok: first.running <= 10,
        },
        {
          figure: 'first token, used session, over the upstream (p50 of 20)',
          measured: ms(first.used, 2),
          target: '≤ 10 ms',
          ok: first.used <= 10,
        },
        {
          figure: 'tree PSS, just started (spare warm)',
          measured: tree(rest.started),
          target: '≤ 87 MB',
          ok: rest.started.bytes <= 87e6,
        },
        { figure: 'tree RSS, just started (spare warm)', measured: mb(rest.startedRss) },
        {
          figure: 'tree PSS, idle (after 10 sessions, all released)',
          measured: tree(rest.idle),
          target: '≤ 75 MB',
          ok: rest.idle.bytes <= 75e6,
        },
        {
          figure: 'tree PSS, 20 sessions streaming at once: peak',
          measured: tree(many.peak),
          target: '≤ 300 MB',
          ok: many.peak.bytes <= 300e6,
        },
        {
          figure: '20 sessions streaming at once: last run.ended (upstream alone: 2,900 ms)',
          measured: ms(many.lastEndedMs, 0),
        },
        {
          figure: 'tree PSS after 100 short sessions (their kernels kept 30 s)',
          measured: tree(slow.before),
        },
        {
          figure: 'tree PSS, then a 20,000-delta reply to a slow reader: peak',
          measured: tree(slow.peak),
          target: '≤ 120 MB',
          ok: slow.peak.bytes <= 120e6,
        },
        {
          figure: 'tree PSS, idle after the 20 sessions',
          measured: tree(many.idleAfter),
          target: '≤ 75 MB',
          ok: many.idleAfter.bytes <= 75e6,
        },
      ]
    } finally {
      up.close()
    }
  },
}
