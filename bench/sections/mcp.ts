// MCP: what a session's MCP servers cost. An upstream in this process answers a message's
// first request with a Responses `function_call` of `mcp__fake__echo` (the stdio fake server
// of test/fakes/mcp/, written with the SDK) and the next with a one-word answer. Figures:
// - a message's wait before its first model request in a new session, without servers and
//   with one stdio server (spawned and initialized for the session; the first session of a
//   kernel process also loads the MCP client bundle);
// - the MCP tool round trip added by hearth (call complete → next request, the server kept
//   between messages of one session), as the `tools` section measures a `read`.
import { mkdirSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { v7 as uuidv7 } from 'uuid'
import { median, ms, ROOT, type Row, type Section, spawnDaemon, tempHome } from '../lib.ts'
import { call, follow } from './runs.ts'

const SESSIONS = 10
const ROUND_TRIPS = 40
const frame = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`

async function upstream() {
  const state = { requests: 0, callEndedAt: 0, firstAt: 0, gaps: [] as number[], withCall: true }
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume()
    req.on('end', () => {
      const at = performance.now()
      const n = state.requests++
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(frame({ type: 'response.created', response: { id: `r${n}` } }))
      if (!state.withCall || n % 2 === 1) {
        if (!state.withCall) state.firstAt = at
        else state.gaps.push(at - state.callEndedAt)
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
          frame({ type: 'response.completed', response: { id: `r${n}`, status: 'completed', output: [] } }),
        )
        return
      }
      state.firstAt = at
      const args = JSON.stringify({ text: 'hi' })
      const item = {
        id: 'fc',
        type: 'function_call',
        call_id: `call_${n}`,
        name: 'mcp__fake__echo',
        arguments: '',
      }
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
        frame({ type: 'response.completed', response: { id: `r${n}`, status: 'completed', output: [done] } }),
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

function writeConfig(home: string, url: string, withServer: boolean): void {
  const mcp = {
    servers: { fake: { command: process.execPath, args: [join(ROOT, 'test/fakes/mcp/stdio-server.ts')] } },
  }
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({
      providers: {
        default_profile: 'b',
        profiles: { b: { endpoint: url, protocol: 'responses', model: 'm' } },
      },
      tools: { approval_policy: 'auto' },
      ...(withServer ? { mcp } : {}),
    }),
  )
}

/** Median wait from a new session's first message to its first model request. */
async function firstRequestWaits(withServer: boolean, up: Awaited<ReturnType<typeof upstream>>) {
  const home = tempHome()
  const workspace = join(home, 'ws')
  mkdirSync(workspace)
  writeConfig(home, up.url, withServer)
  up.state.withCall = false
  up.state.requests = 0
  const d = await spawnDaemon(home)
  const waits: number[] = []
  try {
    await new Promise((r) => setTimeout(r, 300))
    for (let i = 0; i < SESSIONS + 1; i++) {
      const sid = uuidv7()
      await call(d, 'PUT', `/sessions/${sid}`, { kind: 'new', workspace })
      const s = follow(d, sid)
      await s.next('snapshot')
      const ended = s.next('run.ended')
      const sent = performance.now()
      await call(d, 'PUT', `/sessions/${sid}/inputs/${uuidv7()}`, {
        kind: 'message',
        text: 'hi',
        client_id: 'b',
      })
      await ended
      // The first session of the kernel process also loads the client bundle: kept apart.
      waits.push(up.state.firstAt - sent)
      s.close()
    }
  } finally {
    await d.stop()
  }
  return { first: waits[0], rest: median(waits.slice(1)) }
}

async function roundTrips(up: Awaited<ReturnType<typeof upstream>>): Promise<number> {
  const home = tempHome()
  const workspace = join(home, 'ws')
  mkdirSync(workspace)
  writeConfig(home, up.url, true)
  up.state.withCall = true
  up.state.requests = 0
  up.state.gaps = []
  const d = await spawnDaemon(home)
  try {
    const sid = uuidv7()
    await call(d, 'PUT', `/sessions/${sid}`, { kind: 'new', workspace })
    const s = follow(d, sid)
    await s.next('snapshot')
    for (let i = 0; i < ROUND_TRIPS + 5; i++) {
      const ended = s.next('run.ended')
      await call(d, 'PUT', `/sessions/${sid}/inputs/${uuidv7()}`, {
        kind: 'message',
        text: 'echo',
        client_id: 'b',
      })
      await ended
    }
    s.close()
    return median(up.state.gaps.slice(5))
  } finally {
    await d.stop()
  }
}

export const mcp: Section = {
  name: 'mcp',
  description: 'MCP servers: a new session’s first request with and without one, the MCP tool round trip',
  async run(): Promise<Row[]> {
    const up = await upstream()
    try {
      const none = await firstRequestWaits(false, up)
      const one = await firstRequestWaits(true, up)
      const trip = await roundTrips(up)
      return [
        {
          figure: `new session, message → first model request, no MCP server (p50 of ${SESSIONS})`,
          measured: ms(none.rest),
        },
        { figure: `the same with one stdio MCP server (p50 of ${SESSIONS})`, measured: ms(one.rest) },
        {
          figure: 'the same, first session of the kernel process (loads the MCP client)',
          measured: ms(one.first),
        },
        {
          figure: `MCP tool round trip added by hearth, server kept (p50 of ${ROUND_TRIPS})`,
          measured: ms(trip, 2),
        },
      ]
    } finally {
      up.close()
    }
  },
}
