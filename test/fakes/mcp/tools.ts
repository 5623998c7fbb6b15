// The tools the fake MCP servers serve, written with the SDK's own server (McpServer), so
// the daemon's client meets real MCP over a real transport.
import { createHash } from 'node:crypto'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import * as z from 'zod'

/** A 1×1 PNG. */
export const PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

export interface FakeToolsOptions {
  /** Called as the `crash` tool runs (the stdio server exits). */
  crash?: () => void
  /** What `env_digest` reads (the stdio server's environment). */
  env?: NodeJS.ProcessEnv
}

export function fakeMcpServer(name: string, opts: FakeToolsOptions = {}): McpServer {
  const server = new McpServer({ name, version: '1.0.0' })
  server.registerTool(
    'echo',
    {
      description: 'Says the text back',
      inputSchema: { text: z.string() },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
  )
  server.registerTool(
    'count',
    {
      description: 'Counts to n, reporting progress on the way',
      inputSchema: { n: z.number().int().min(1).max(20) },
    },
    async ({ n }, extra) => {
      const token = extra._meta?.progressToken
      for (let i = 1; i <= n; i++) {
        await new Promise((r) => setTimeout(r, 5))
        // The last one leaves just before the result, so both usually reach the client in one read.
        if (token !== undefined)
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: i, total: n, message: `step ${i}` },
          })
      }
      return { content: [{ type: 'text', text: `counted to ${n}` }] }
    },
  )
  server.registerTool(
    'sleep',
    { description: 'Waits ms milliseconds without a word', inputSchema: { ms: z.number().int().min(0) } },
    async ({ ms }, extra) => {
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, ms)
        extra.signal.addEventListener('abort', () => {
          clearTimeout(timer)
          resolve(undefined)
        })
      })
      return { content: [{ type: 'text', text: extra.signal.aborted ? 'cancelled' : `slept ${ms} ms` }] }
    },
  )
  server.registerTool(
    'pid',
    {
      description: 'The process id of the server',
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => ({ content: [{ type: 'text', text: String(process.pid) }] }),
  )
  server.registerTool(
    'grow',
    { description: 'Adds the tool `extra` (the server tells its client the list changed)', inputSchema: {} },
    async () => {
      if (!server.isConnected()) return { content: [{ type: 'text', text: 'not connected' }] }
      server.registerTool('extra', { description: 'A tool added later', inputSchema: {} }, async () => ({
        content: [{ type: 'text', text: 'extra here' }],
      }))
      return { content: [{ type: 'text', text: 'grown' }] }
    },
  )
  server.registerTool('fail', { description: 'Always reports an error', inputSchema: {} }, async () => ({
    isError: true,
    content: [{ type: 'text', text: 'the thing is broken' }],
  }))
  server.registerTool(
    'pixel',
    {
      description: 'Returns a one-pixel image',
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => ({
      content: [
        { type: 'text', text: 'here is a pixel' },
        { type: 'image', data: PIXEL_PNG, mimeType: 'image/png' },
      ],
    }),
  )
  if (opts.env) {
    const env = opts.env
    server.registerTool(
      'env_digest',
      {
        description: 'The sha256 of an environment variable, and the variable itself',
        inputSchema: { name: z.string() },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      async ({ name }) => {
        const value = env[name]
        const hearth = Object.keys(env).filter((k) => k.startsWith('HEARTH_'))
        const text =
          value === undefined
            ? `${name} is not set`
            : `${name} sha256 ${sha256(value)}; value ${value}; hearth variables: ${hearth.length}`
        return { content: [{ type: 'text', text }] }
      },
    )
  }
  if (opts.crash) {
    const crash = opts.crash
    server.registerTool('crash', { description: 'Makes the server exit', inputSchema: {} }, async () => {
      crash()
      return { content: [{ type: 'text', text: 'unreachable' }] }
    })
  }
  return server
}
