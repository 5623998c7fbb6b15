// A child process for test/http/adapter-parity.test.ts: hearth's Hono app (buildApp, with its
// guards, op runner, problem responses, zstd and SSE) over a few ops of its own, served
// through the adapter named by argv[2]: `hearth` (src/http/node-adapter.ts, as the daemon
// serves it) or `node-server` (@hono/node-server). Each adapter runs in a process of its own,
// since each replaces the global Response. Prints the port on its first line.
import type { AddressInfo } from 'node:net'
import { Type } from 'typebox'
import { buildApp } from '../../src/http/app.ts'
import { createFetchServer } from '../../src/http/node-adapter.ts'
import { bindGroup } from '../../src/http/route.ts'
import { type FrameSource, sseResponse } from '../../src/http/sse.ts'
import { defineOps } from '../../src/schemas/op.ts'

/** The bearer token the test sends (argv[3]). */
const TOKEN = process.argv[3]

const Thing = Type.Object({ id: Type.String(), words: Type.Array(Type.String()) })
const ById = Type.Object({ id: Type.String({ pattern: '^[a-z0-9-]+$' }) })

/** What happened to the streams the server opened: read by the test after an abort. */
const streamLog: string[] = []

/** A thing whose body is `n` words long (past 1 KiB it is zstd-coded when the client admits it). */
const thing = (id: string, n: number) => ({ id, words: Array.from({ length: n }, (_, i) => `word-${i}`) })

/** Three batches of frames, then the end; or, for `hold`, frames until the client goes away. */
function frames(hold: boolean): FrameSource {
  let batch = 0
  let closed = false
  let wake: (() => void) | undefined
  return {
    async next() {
      if (closed) return null
      batch++
      if (batch <= 3)
        return [{ id: `1:${batch}`, event: 'item', data: { batch, text: 'é ✓ '.repeat(batch) } }]
      if (!hold) return null
      await new Promise<void>((resolve) => {
        wake = resolve
      })
      return null
    },
    close() {
      closed = true
      streamLog.push(hold ? 'held stream closed' : 'stream closed')
      wake?.()
    },
  }
}

const ops = defineOps({
  getThing: {
    method: 'GET',
    path: '/things/{id}',
    summary: 'a thing, or its stream',
    tags: ['test'],
    params: ById,
    responses: { 200: { description: 'a thing', schema: Thing, headers: ['ETag'], stream: Type.Unknown() } },
    problems: [],
  },
  putThing: {
    method: 'PUT',
    path: '/things/{id}',
    summary: 'makes a thing',
    tags: ['test'],
    params: ById,
    body: Type.Object({ words: Type.Array(Type.String()) }, { additionalProperties: false }),
    bodyLimit: 4096,
    responses: { 201: { description: 'made', schema: Thing, headers: ['Location'] } },
    problems: [],
  },
  deleteThing: {
    method: 'DELETE',
    path: '/things/{id}',
    summary: 'removes a thing',
    tags: ['test'],
    params: ById,
    responses: { 204: { description: 'gone' } },
    problems: [],
  },
  getLog: {
    method: 'GET',
    path: '/log',
    summary: 'what happened to the streams',
    tags: ['test'],
    responses: { 200: { description: 'the log', schema: Type.Object({ log: Type.Array(Type.String()) }) } },
    problems: [],
  },
})

const routes = bindGroup(ops)({
  getThing: async (input) => {
    const { id } = input.params
    if (input.accept.includes('text/event-stream')) {
      const source = frames(id === 'held')
      const signal = input.signal
      return {
        response: sseResponse(source, {
          acceptEncoding: input.header('accept-encoding'),
          signal,
          heartbeatMs: 60_000,
        }),
      }
    }
    return { status: 200, body: thing(id, id === 'big' ? 200 : 3), headers: { etag: `"${id}-1"` } }
  },
  putThing: async (input) => ({
    status: 201,
    body: { id: input.params.id, words: input.body.words },
    headers: { location: `/things/${input.params.id}` },
  }),
  deleteThing: async () => ({ status: 204, body: undefined }),
  getLog: async () => ({ status: 200, body: { log: streamLog } }),
})

const quiet = { info() {}, warn() {}, error() {}, fatal() {} }

let port = 0
const app = buildApp(routes, {
  token: TOKEN,
  port: () => port,
  draining: () => false,
  log: quiet,
  track: (work) => work,
  shutdownSignal: new AbortController().signal,
})

async function listen(): Promise<AddressInfo> {
  if (process.argv[2] === 'node-server') {
    const { serve } = await import('@hono/node-server')
    return new Promise((resolve) => {
      serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, resolve)
    })
  }
  const server = createFetchServer(app.fetch)
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(server.address() as AddressInfo)),
  )
}

port = (await listen()).port
process.stdout.write(`${port}\n`)
