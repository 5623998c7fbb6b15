// Runs: what the daemon adds on top of the provider. An upstream in this process speaks the
// Responses stream and notes when it wrote its first and last delta (same clock as the SSE
// reader here), so the figures are the daemon's own cost:
//
// - first token: from the upstream writing its first delta to the session stream showing
//   the first output.delta, median of 20 turns (target ≤ 5 ms added);
// - a 2,000-delta reply: from the upstream's first delta to run.ended on the stream, minus
//   the upstream's own first-to-last time, median of 5 (target ≤ 60 ms);
// - a 20,000-delta reply read by a slow SSE client (one read per 20 ms): the daemon's peak
//   RSS (VmHWM, target ≤ 100 MB) and the frames per second the reader received;
// - admission: 1,000 input PUTs from 100 concurrent clients into 50 sessions, each
//   fsynced before its 202 (group commit): admissions per second and p99 latency.
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { v7 as uuidv7 } from 'uuid'
import {
  type BenchDaemon,
  homeWithConfig,
  mb,
  median,
  memoryOf,
  ms,
  percentile,
  type Row,
  type Section,
  sessionStreamRequest,
  spawnDaemon,
} from '../lib.ts'

interface Turn {
  deltas: number
  firstAt: number
  lastAt: number
}

/** A Responses upstream whose next reply has `deltas` deltas; records its own timing. */
async function upstream() {
  const state = { deltas: 1, turns: [] as Turn[] }
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume()
    req.on('end', () => {
      const turn: Turn = { deltas: state.deltas, firstAt: 0, lastAt: 0 }
      state.turns.push(turn)
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      const frame = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`
      res.write(frame({ type: 'response.created', response: { id: 'r' } }))
      res.write(
        frame({ type: 'response.output_item.added', output_index: 0, item: { id: 'm', type: 'message' } }),
      )
      for (let i = 0; i < turn.deltas; i++) {
        if (i === 0) turn.firstAt = performance.now()
        res.write(
          frame({
            type: 'response.output_text.delta',
            item_id: 'm',
            output_index: 0,
            content_index: 0,
            delta: `w${i} `,
          }),
        )
      }
      turn.lastAt = performance.now()
      res.end(
        frame({
          type: 'response.completed',
          response: {
            id: 'r',
            status: 'completed',
            output: [],
            usage: { input_tokens: 1, output_tokens: turn.deltas, total_tokens: turn.deltas + 1 },
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

export function call(
  d: BenchDaemon,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${d.token}`,
    'content-type': 'application/json',
  }
  if (method === 'PUT' && !path.includes('/inputs/')) headers['if-none-match'] = '*'
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: d.port, method, path, headers }, (res) => {
      let text = ''
      res.on('data', (c) => {
        text += c
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : null }))
    })
    req.on('error', reject)
    req.end(body === undefined ? undefined : JSON.stringify(body))
  })
}

/** Follows the session stream; resolves each watcher when its event arrives. */
export function follow(d: BenchDaemon, sessionId: string, readDelayMs = 0) {
  const waiters: { event: string; resolve: (at: number) => void }[] = []
  let frames = 0
  const req = sessionStreamRequest(d, sessionId)
  req.on('response', (res) => {
    let buf = ''
    const onData = (chunk: Buffer) => {
      const at = performance.now()
      buf += chunk.toString()
      let i = buf.indexOf('\n\n')
      while (i >= 0) {
        const f = buf.slice(0, i)
        buf = buf.slice(i + 2)
        frames++
        const event = /^event: (.*)$/m.exec(f)?.[1]
        const w = waiters.findIndex((x) => x.event === event)
        if (w >= 0) waiters.splice(w, 1)[0].resolve(at)
        i = buf.indexOf('\n\n')
      }
      if (readDelayMs > 0) {
        res.pause()
        setTimeout(() => res.resume(), readDelayMs)
      }
    }
    res.on('data', onData)
  })
  req.end()
  return {
    next: (event: string) => new Promise<number>((resolve) => waiters.push({ event, resolve })),
    frames: () => frames,
    close: () => req.destroy(),
  }
}

export async function turn(d: BenchDaemon, sessionId: string, s: ReturnType<typeof follow>) {
  const first = s.next('output.delta')
  const ended = s.next('run.ended')
  const r = await call(d, 'PUT', `/sessions/${sessionId}/inputs/${uuidv7()}`, {
    kind: 'message',
    text: 'go',
    client_id: 'bench',
  })
  if (r.status !== 202) throw new Error(`input: ${r.status} ${JSON.stringify(r.json)}`)
  return { first: await first, ended: await ended }
}

/**
 * 1,000 admissions from 100 concurrent clients spread over 50 sessions. The sessions name
 * a profile that does not exist, so each turn fails at once without a kernel: the figure is
 * admission (and the run bookkeeping it triggers), not 50 kernel processes starting.
 */
async function admissions(d: BenchDaemon, home: string) {
  const sessions: string[] = []
  for (let i = 0; i < 50; i++) {
    const sid = uuidv7()
    await call(d, 'PUT', `/sessions/${sid}`, { kind: 'new', workspace: home, provider_profile: 'none' })
    sessions.push(sid)
  }
  const latencies: number[] = []
  let next = 0
  const t0 = performance.now()
  const client = async () => {
    for (let i = next++; i < 1_000; i = next++) {
      const start = performance.now()
      const r = await call(d, 'PUT', `/sessions/${sessions[i % 50]}/inputs/${uuidv7()}`, {
        kind: 'message',
        text: `input ${i}`,
        client_id: 'bench',
      })
      if (r.status !== 202) throw new Error(`admission: ${r.status} ${JSON.stringify(r.json)}`)
      latencies.push(performance.now() - start)
    }
  }
  await Promise.all(Array.from({ length: 100 }, client))
  return {
    perSecond: 1_000 / ((performance.now() - t0) / 1000),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  }
}

export const runs: Section = {
  name: 'runs',
  description: 'first token, a 2,000-delta reply, memory under a 20,000-delta reply',
  async run(): Promise<Row[]> {
    const up = await upstream()
    const home = homeWithConfig({
      providers: {
        default_profile: 'b',
        profiles: { b: { endpoint: up.url, protocol: 'responses', model: 'm' } },
      },
    })
    const d = await spawnDaemon(home)
    try {
      const sid = uuidv7()
      await call(d, 'PUT', `/sessions/${sid}`, { kind: 'new', workspace: home })
      const s = follow(d, sid)
      await new Promise((r) => setTimeout(r, 200))
      const added: number[] = []
      up.state.deltas = 1
      for (let i = 0; i < 23; i++) {
        const t = await turn(d, sid, s)
        if (i >= 3) added.push(t.first - (up.state.turns.at(-1) as Turn).firstAt)
      }
      const overhead: number[] = []
      up.state.deltas = 2_000
      for (let i = 0; i < 6; i++) {
        const t = await turn(d, sid, s)
        const u = up.state.turns.at(-1) as Turn
        if (i >= 1) overhead.push(t.ended - u.firstAt - (u.lastAt - u.firstAt))
      }
      // A subscriber reading at full speed while the upstream sends 20,000 deltas at once.
      up.state.deltas = 20_000
      const fastBefore = s.frames()
      const fastStart = performance.now()
      const fast = await turn(d, sid, s)
      const fastSeconds = (fast.ended - fastStart) / 1000
      const fastEvents = s.frames() - fastBefore
      const eventsPerSecond = fastEvents / fastSeconds
      const deltasPerSecond = 20_000 / fastSeconds
      s.close()
      const slowSid = uuidv7()
      await call(d, 'PUT', `/sessions/${slowSid}`, { kind: 'new', workspace: home })
      const slow = follow(d, slowSid, 20)
      await new Promise((r) => setTimeout(r, 200))
      up.state.deltas = 20_000
      const before = slow.frames()
      const t0 = performance.now()
      const t = await turn(d, slowSid, slow)
      const seconds = (t.ended - t0) / 1000
      const framesPerSecond = (slow.frames() - before) / seconds
      const peak = memoryOf(d.pid).peak
      slow.close()
      up.state.deltas = 1
      const admitted = await admissions(d, home)
      return [
        {
          figure: 'first token added over the upstream (p50 of 20)',
          measured: ms(median(added), 2),
          target: '≤ 5 ms',
          ok: median(added) <= 5,
        },
        {
          figure: '2,000-delta reply: time over the upstream (p50 of 5)',
          measured: ms(median(overhead)),
          target: '≤ 60 ms',
          ok: median(overhead) <= 60,
        },
        {
          figure: '20,000-delta reply, full-speed reader: log events/s (batched deltas)',
          measured: `${eventsPerSecond.toFixed(0)} (${fastEvents} events)`,
        },
        {
          figure: '20,000-delta reply, full-speed reader: upstream deltas/s delivered',
          measured: deltasPerSecond.toFixed(0),
        },
        {
          figure: '20,000-delta reply, slow reader: frames/s received',
          measured: framesPerSecond.toFixed(0),
        },
        {
          figure: '20,000-delta reply, slow reader: daemon peak RSS',
          measured: mb(peak),
          target: '≤ 100 MB',
          ok: peak <= 100e6,
        },
        {
          figure: 'admission, 100 concurrent clients: inputs/s (each fsynced before 202)',
          measured: admitted.perSecond.toFixed(0),
        },
        {
          figure: 'admission, 100 concurrent clients: latency p50 / p99',
          measured: `${ms(admitted.p50)} / ${ms(admitted.p99)}`,
        },
      ]
    } finally {
      await d.stop()
      up.close()
    }
  },
}
