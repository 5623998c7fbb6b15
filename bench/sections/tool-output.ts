// Command output through the whole daemon: a `shell` call printing 4 MiB (the most one call
// streams) read by an SSE subscriber, from its first stdout `tool.progress` to its last
// (target ≥ 50 MB/s); then a background job printing 1 GB, with the daemon's RSS and the
// tree's PSS sampled while it runs (bounded: the job's output goes to its bounded files in
// the kernel, only its byte count reaches the daemon).
import { mkdirSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { v7 as uuidv7 } from 'uuid'
import {
  type BenchDaemon,
  mb,
  memoryOf,
  type Row,
  type Section,
  sampleTreePss,
  sessionStreamRequest,
  spawnDaemon,
  tempHome,
} from '../lib.ts'
import { call } from './runs.ts'

const STREAMED_BYTES = 4 * 1024 * 1024
const JOB_BYTES = 1_000_000_000
const TARGET_MB_S = 50

const frame = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`
const LINE = 'x'.repeat(98)

/** A Responses upstream that answers with the scripted replies in turn: a call or a text. */
async function scriptedUpstream(replies: ({ call: string; args: unknown } | { text: string })[]) {
  let n = 0
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume()
    req.on('end', () => {
      const reply = replies[n % replies.length]
      const id = `r${n++}`
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(frame({ type: 'response.created', response: { id } }))
      if ('text' in reply) {
        const item = { id: 'm', type: 'message', role: 'assistant', content: [] }
        res.write(frame({ type: 'response.output_item.added', output_index: 0, item }))
        const delta = { item_id: 'm', output_index: 0, content_index: 0, delta: reply.text }
        res.write(frame({ type: 'response.output_text.delta', ...delta }))
        res.end(frame({ type: 'response.completed', response: { id, status: 'completed', output: [] } }))
        return
      }
      const args = JSON.stringify(reply.args)
      const done = {
        id: 'fc',
        type: 'function_call',
        call_id: `call_${id}`,
        name: reply.call,
        arguments: args,
      }
      res.write(
        frame({ type: 'response.output_item.added', output_index: 0, item: { ...done, arguments: '' } }),
      )
      res.write(frame({ type: 'response.output_item.done', output_index: 0, item: done }))
      res.end(frame({ type: 'response.completed', response: { id, status: 'completed', output: [done] } }))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, close: () => server.close() }
}

interface Watch {
  /** Resolves when `event` arrives and `test` (on its payload) holds. */
  until(event: string, test?: (payload: any) => boolean): Promise<void>
  /** Bytes of stdout in tool.progress events, and when the first and the last arrived. */
  progressBytes: number
  firstProgressAt: number
  lastProgressAt: number
  close(): void
}

/** A session stream reader that counts the bytes of tool.progress texts as they arrive. */
function watch(d: BenchDaemon, sid: string): Watch {
  const waiters: { event: string; test: (p: any) => boolean; resolve: () => void }[] = []
  const w: Watch = {
    progressBytes: 0,
    firstProgressAt: 0,
    lastProgressAt: 0,
    until: (event, test = () => true) => new Promise((resolve) => waiters.push({ event, test, resolve })),
    close: () => req.destroy(),
  }
  const req = sessionStreamRequest(d, sid)
  req.on('response', (res) => {
    let buf = ''
    res.setEncoding('utf8')
    res.on('data', (chunk: string) => {
      buf += chunk
      for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
        const f = buf.slice(0, i)
        buf = buf.slice(i + 2)
        const event = /^event: (.*)$/m.exec(f)?.[1]
        const data = /^data: (.*)$/m.exec(f)?.[1]
        if (!event || !data) continue
        const payload = JSON.parse(data).payload
        if (event === 'tool.progress' && payload.stream === 'stdout') {
          const now = performance.now()
          if (w.firstProgressAt === 0) w.firstProgressAt = now
          w.lastProgressAt = now
          w.progressBytes += Buffer.byteLength(payload.text)
        }
        const k = waiters.findIndex((x) => x.event === event && x.test(payload))
        if (k >= 0) waiters.splice(k, 1)[0].resolve()
      }
    })
  })
  req.on('error', () => {})
  req.end()
  return w
}

async function send(d: BenchDaemon, sid: string, text: string): Promise<void> {
  const r = await call(d, 'PUT', `/sessions/${sid}/inputs/${uuidv7()}`, {
    kind: 'message',
    text,
    client_id: 'b',
  })
  if (r.status !== 202) throw new Error(`input: ${r.status} ${JSON.stringify(r.json)}`)
}

export const toolOutput: Section = {
  name: 'tool-output',
  description: 'command output through the daemon to a subscriber; daemon memory while a job prints 1 GB',
  async run(): Promise<Row[]> {
    const up = await scriptedUpstream([
      { call: 'shell', args: { command: `yes ${LINE} | head -c ${STREAMED_BYTES}` } },
      { text: 'printed' },
      { call: 'job_start', args: { command: `yes ${LINE} | head -c ${JOB_BYTES}` } },
      { text: 'started' },
    ])
    const home = tempHome()
    const workspace = join(home, 'ws')
    mkdirSync(workspace)
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        providers: {
          default_profile: 'b',
          profiles: { b: { endpoint: up.url, protocol: 'responses', model: 'm' } },
        },
        tools: { approval_policy: 'auto' },
      }),
    )
    const d = await spawnDaemon(home)
    try {
      await new Promise((r) => setTimeout(r, 500))
      const sid = uuidv7()
      await call(d, 'PUT', `/sessions/${sid}`, { kind: 'new', workspace })
      const w = watch(d, sid)
      await w.until('snapshot')
      const ended = w.until('tool.ended')
      await send(d, sid, 'print')
      await ended
      // From the first byte of output at the subscriber to the last (a login shell's own
      // start-up, before its first byte, is not streaming).
      const seconds = (w.lastProgressAt - w.firstProgressAt) / 1000
      const rate = w.progressBytes / 1e6 / seconds
      await w.until('run.ended')

      const before = memoryOf(d.pid).rss
      const tree = sampleTreePss(d.pid, 50)
      let peakRss = before
      const sampler = setInterval(() => {
        peakRss = Math.max(peakRss, memoryOf(d.pid).rss)
      }, 50)
      const started = performance.now()
      const jobGone = w.until('kernel.jobs_changed', (p) => p.live_job_count === 0)
      await send(d, sid, 'start a job')
      await jobGone
      const jobSeconds = (performance.now() - started) / 1000
      clearInterval(sampler)
      const peakTree = tree.stop()
      w.close()
      return [
        {
          figure: `command output to an SSE subscriber (${mb(w.progressBytes)} of a shell call)`,
          measured: `${rate.toFixed(0)} MB/s`,
          target: `≥ ${TARGET_MB_S} MB/s`,
          ok: rate >= TARGET_MB_S,
        },
        {
          figure: `daemon RSS while a job prints 1 GB (${jobSeconds.toFixed(1)} s): before → peak`,
          measured: `${mb(before)} → ${mb(peakRss)}`,
        },
        {
          figure: 'tree PSS while the job prints: peak',
          measured: `${mb(peakTree.bytes)} (${peakTree.processes} processes)`,
        },
      ]
    } finally {
      await d.stop()
      up.close()
    }
  },
}
