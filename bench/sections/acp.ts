// ACP: what `hearth acp` adds between the daemon's session stream and the editor. The bench
// is the editor (the SDK's client over real pipes to `bin/hearth.mjs acp`) and, beside it,
// a plain client holding the same session's stream; the upstream is a Responses server in
// this process. All three read on this process's clock.
//
// - per update: a reply of 200 deltas, one every 5 ms; the k-th `output.delta` frame on the
//   plain stream and the k-th `agent_message_chunk` line on the editor's pipe are paired
//   (each event is one update), the difference is what hearth acp added (its SSE read, the
//   mapping, the JSON-RPC line); both are timed on the arrival of their bytes, before any
//   parsing in this process;
// - memory: two replies of 20,000 deltas each, one a millisecond (each its own event); the
//   hearth acp process's RSS before, at its peak and after each, and what it relayed.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer, request as httpRequest, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Readable, Writable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { client, methods, ndJsonStream } from '@agentclientprotocol/sdk'
import { v7 as uuidv7 } from 'uuid'
import {
  type BenchDaemon,
  BIN,
  homeWithConfig,
  mb,
  median,
  memoryOf,
  ms,
  percentile,
  type Row,
  type Section,
  spawnDaemon,
  sseFrame,
} from '../lib.ts'

/** The `hearth` that runs `acp`: this checkout's, or another build's for an A/B (its bin/hearth.mjs). */
const ACP_BIN = process.env.HEARTH_BENCH_ACP_BIN ?? BIN
const LATENCY_DELTAS = 200
const LATENCY_GAP_MS = 5
const BIG_DELTAS = 20_000
/**
 * The big replies' pace: one delta a millisecond, so that the daemon, which joins the deltas
 * of one tick into one event, sends each as an event of its own (20,000 updates to relay).
 */
const BIG_GAP_MS = 1

interface Reply {
  deltas: number
  gapMs: number
}

/** A Responses upstream answering each request with the next reply's deltas (`d<i> `). */
async function upstream() {
  const replies: Reply[] = []
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => void answer(res, replies.shift() ?? { deltas: 1, gapMs: 0 }))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
  return { url, replies, close: () => new Promise((r) => server.close(r)) }
}

async function answer(res: ServerResponse, reply: Reply): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream' })
  const item = { id: 'm', type: 'message', role: 'assistant', content: [] }
  res.write(sseFrame({ type: 'response.created', response: { id: 'r' } }))
  res.write(sseFrame({ type: 'response.output_item.added', output_index: 0, item }))
  const delta = (i: number) =>
    sseFrame({
      type: 'response.output_text.delta',
      item_id: 'm',
      output_index: 0,
      content_index: 0,
      delta: `d${i} `,
    })
  for (let i = 0; i < reply.deltas; i++) {
    res.write(delta(i))
    await sleep(reply.gapMs)
  }
  res.end(
    sseFrame({
      type: 'response.completed',
      response: { id: 'r', status: 'completed', output: [], usage: { input_tokens: 1, output_tokens: 1 } },
    }),
  )
}

/** The times `marker` arrived on a stream of bytes, once per occurrence, taken on arrival. */
function arrivals(marker: string) {
  const times: number[] = []
  let carry = ''
  return {
    times,
    feed(chunk: Buffer) {
      const at = performance.now()
      const text = carry + chunk.toString('latin1')
      let from = 0
      for (;;) {
        const i = text.indexOf(marker, from)
        if (i < 0) break
        times.push(at)
        from = i + marker.length
      }
      carry = text.slice(Math.max(from, text.length - marker.length + 1))
    },
  }
}

async function createSession(d: BenchDaemon, workspace: string): Promise<string> {
  const id = uuidv7()
  const res = await fetch(`${d.url}/sessions/${id}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${d.token}`, 'content-type': 'application/json', 'if-none-match': '*' },
    body: JSON.stringify({ kind: 'new', workspace }),
  })
  if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`)
  return id
}

/** The session's stream held by a plain client, noting when each output.delta frame arrived. */
function plainStream(d: BenchDaemon, sessionId: string) {
  const deltas = arrivals('event: output.delta')
  const req = httpRequest({
    host: '127.0.0.1',
    port: d.port,
    path: `/sessions/${sessionId}?tail=0`,
    headers: { authorization: `Bearer ${d.token}`, accept: 'text/event-stream' },
  })
  const open = new Promise<void>((resolve, reject) => {
    req.on('response', (res) => {
      res.on('data', (c: Buffer) => deltas.feed(c))
      resolve()
    })
    req.on('error', reject)
  })
  req.end()
  return { deltas, open, close: () => req.destroy() }
}

/** `hearth acp` driven by the SDK's client side; chunk lines timed as they arrive on its stdout. */
function editor(home: string) {
  const child = spawn(ACP_BIN, ['acp', '--home', home], { stdio: ['pipe', 'pipe', 'inherit'] })
  const chunks = arrivals('"agent_message_chunk"')
  const relay = new Readable({ read() {} })
  child.stdout.on('data', (c: Buffer) => {
    chunks.feed(c)
    relay.push(c)
  })
  child.stdout.on('end', () => relay.push(null))
  const connection = client({ name: 'bench' })
    .onNotification(methods.client.session.update, () => {})
    .connect(
      ndJsonStream(
        Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
        Readable.toWeb(relay) as ReadableStream<Uint8Array>,
      ),
    )
  const prompt = (sessionId: string, text: string) =>
    connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] })
  const close = async () => {
    child.stdin.end()
    await new Promise((r) => child.once('exit', r))
  }
  return { child, chunks, connection, prompt, close }
}

/** CPU time a process has used (user + system), in ms, from /proc/PID/stat. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 // utime, stime in 1/100 s
}

/** Samples a process's RSS every 20 ms until stopped; resolves with the highest seen. */
function rssPeak(pid: number) {
  let peak = memoryOf(pid).rss
  const timer = setInterval(() => {
    peak = Math.max(peak, memoryOf(pid).rss)
  }, 20)
  return () => {
    clearInterval(timer)
    return Math.max(peak, memoryOf(pid).rss)
  }
}

async function run(): Promise<Row[]> {
  const up = await upstream()
  const home = homeWithConfig({
    providers: {
      default_profile: 'b',
      profiles: { b: { endpoint: up.url, protocol: 'responses', model: 'm' } },
    },
  })
  const d = await spawnDaemon(home)
  const e = editor(home)
  try {
    await e.connection.agent.request(methods.agent.initialize, { protocolVersion: 1 })
    const sid = await createSession(d, home)
    const plain = plainStream(d, sid)
    await plain.open
    // Warm-up: the first prompt follows the session and loads what the process needs.
    up.replies.push({ deltas: 20, gapMs: 1 })
    await e.prompt(sid, 'warm up')
    await sleep(200)
    const [p0, c0] = [plain.deltas.times.length, e.chunks.times.length]
    up.replies.push({ deltas: LATENCY_DELTAS, gapMs: LATENCY_GAP_MS })
    await e.prompt(sid, 'paced')
    await sleep(200)
    const sse = plain.deltas.times.slice(p0)
    const acp = e.chunks.times.slice(c0)
    const added = acp.slice(0, sse.length).map((t, i) => t - sse[i])
    const pid = e.child.pid as number
    const rows: Row[] = [
      {
        figure: `acp: added per update p50 / p90 (${added.length} of ${sse.length} paired)`,
        measured: `${ms(median(added), 2)} / ${ms(percentile(added, 90), 2)}`,
        target: '< 1 ms p50',
        ok: median(added) < 1 && acp.length === sse.length,
      },
    ]
    const before = memoryOf(pid).rss
    const after: number[] = []
    let peak = 0
    for (let i = 0; i < 2; i++) {
      const stop = rssPeak(pid)
      const c = e.chunks.times.length
      const cpu0 = cpuMs(pid)
      const t0 = performance.now()
      up.replies.push({ deltas: BIG_DELTAS, gapMs: BIG_GAP_MS })
      await e.prompt(sid, `fast ${i}`)
      const wall = performance.now() - t0
      peak = Math.max(peak, stop())
      await sleep(300)
      after.push(memoryOf(pid).rss)
      const relayed = e.chunks.times.length - c
      rows.push({
        figure: `acp: 20,000-delta reply ${i + 1}: updates relayed, time, hearth acp CPU per 1,000`,
        measured: `${relayed} in ${ms(wall, 0)}, ${ms(((cpuMs(pid) - cpu0) / relayed) * 1000, 0)}`,
      })
    }
    rows.push({
      figure: 'acp: RSS before / peak / after 1st / after 2nd 20,000-delta reply',
      measured: `${mb(before)} / ${mb(peak)} / ${mb(after[0])} / ${mb(after[1])}`,
      target: '2nd ≤ 1st + 2 MB',
      ok: after[1] <= after[0] + 2e6,
    })
    plain.close()
    return rows
  } finally {
    await e.close()
    await d.stop()
    await up.close()
  }
}

export const acp: Section = {
  name: 'acp',
  description: 'hearth acp: latency added per update, memory over 20,000-delta replies',
  run,
}
