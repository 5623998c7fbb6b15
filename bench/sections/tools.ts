// Tools: the daemon's time per tool round trip. An upstream in this process answers every
// other request with a Responses `function_call` of `read` on a small file, the others with
// a one-word answer, and notes when it finished writing the call (the model's tool call is
// complete) and when the next request reached it. The difference is what hearth adds to a
// round trip: the kernel decoding the end of the stream, the check of the call, the commit
// of the step, the read in the kernel, the commit of its result, the request rebuilt from
// the history and sent. p50 of 40 round trips after 5 of warm-up (target ≤ 3 ms), each in a
// new session; then 40 more in one session, whose history grows to ~160 messages.
import { mkdirSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { v7 as uuidv7 } from 'uuid'
import { median, ms, percentile, type Row, type Section, spawnDaemon, tempHome } from '../lib.ts'
import { call, follow } from './runs.ts'

const ROUND_TRIPS = 40
const WARM_UP = 5
const TARGET_MS = 3

const frame = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`
/** Every answer reports its usage, as real upstreams do (the daemon records it per step). */
const USAGE = {
  input_tokens: 1200,
  output_tokens: 20,
  total_tokens: 1220,
  input_tokens_details: { cached_tokens: 1024 },
  output_tokens_details: { reasoning_tokens: 0 },
}

/** A Responses upstream alternating a `read` call and an answer; records call-end and next-request times. */
async function upstream() {
  const state = { requests: 0, callEndedAt: 0, gaps: [] as number[] }
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume()
    req.on('end', () => {
      const at = performance.now()
      const n = state.requests++
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(frame({ type: 'response.created', response: { id: `r${n}` } }))
      if (n % 2 === 1) {
        // This request follows a call: it carries the result.
        state.gaps.push(at - state.callEndedAt)
        const item = { id: 'm', type: 'message', role: 'assistant', content: [] }
        res.write(frame({ type: 'response.output_item.added', output_index: 0, item }))
        res.write(
          frame({
            type: 'response.output_text.delta',
            item_id: 'm',
            output_index: 0,
            content_index: 0,
            delta: 'ok',
          }),
        )
        res.end(
          frame({
            type: 'response.completed',
            response: { id: `r${n}`, status: 'completed', output: [], usage: USAGE },
          }),
        )
        return
      }
      const args = JSON.stringify({ path: 'small.txt' })
      const item = { id: 'fc', type: 'function_call', call_id: `call_${n}`, name: 'read', arguments: '' }
      res.write(frame({ type: 'response.output_item.added', output_index: 0, item }))
      res.write(
        frame({
          type: 'response.function_call_arguments.delta',
          item_id: 'fc',
          output_index: 0,
          delta: args,
        }),
      )
      const done = { ...item, arguments: args, status: 'completed' }
      res.write(frame({ type: 'response.output_item.done', output_index: 0, item: done }))
      res.end(
        frame({
          type: 'response.completed',
          response: { id: `r${n}`, status: 'completed', output: [done], usage: USAGE },
        }),
        () => {
          state.callEndedAt = performance.now()
        },
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

export const tools: Section = {
  name: 'tools',
  description: 'daemon time per tool round trip (a read of a small file)',
  async run(): Promise<Row[]> {
    const up = await upstream()
    const home = tempHome()
    const workspace = join(home, 'ws')
    mkdirSync(workspace)
    writeFileSync(join(workspace, 'small.txt'), 'one\ntwo\nthree\n')
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
    /** One message whose run reads the file once, then answers. */
    const roundTrip = async (sid: string, s: ReturnType<typeof follow>) => {
      const ended = s.next('run.ended')
      const r = await call(d, 'PUT', `/sessions/${sid}/inputs/${uuidv7()}`, {
        kind: 'message',
        text: 'read it',
        client_id: 'bench',
      })
      if (r.status !== 202) throw new Error(`input: ${r.status} ${JSON.stringify(r.json)}`)
      await ended
    }
    const session = async () => {
      const sid = uuidv7()
      await call(d, 'PUT', `/sessions/${sid}`, { kind: 'new', workspace })
      const s = follow(d, sid)
      // The stream's snapshot is served before the run, not during it.
      await s.next('snapshot')
      return { sid, s }
    }
    try {
      await new Promise((r) => setTimeout(r, 300))
      for (let i = 0; i < WARM_UP + ROUND_TRIPS; i++) {
        const { sid, s } = await session()
        await roundTrip(sid, s)
        s.close()
      }
      const fresh = up.state.gaps.slice(WARM_UP)
      const long = await session()
      for (let i = 0; i < ROUND_TRIPS; i++) await roundTrip(long.sid, long.s)
      long.s.close()
      const grown = up.state.gaps.slice(WARM_UP + ROUND_TRIPS)
      return [
        {
          figure: `tool round trip added by hearth, read of a small file, new session (p50 of ${fresh.length})`,
          measured: ms(median(fresh), 2),
          target: `≤ ${TARGET_MS} ms`,
          ok: median(fresh) <= TARGET_MS,
        },
        { figure: 'the same, p90', measured: ms(percentile(fresh, 90), 2) },
        {
          figure: `the same in one session growing to ${4 * ROUND_TRIPS} messages (p50 of ${grown.length})`,
          measured: ms(median(grown), 2),
        },
      ]
    } finally {
      await d.stop()
      up.close()
    }
  },
}
