// A server withdrawing what it asked the client (`notifications/cancelled`), through the
// kernel's handlers (src/kernel/mcp/elicitation.ts) on the SDK's own client and server,
// linked in memory. The SDK drops a cancellation of request id 0, a server's first request:
// hearth handles its questions' cancellations itself and passes every other one to the SDK's
// handler, `_oncancel`, which is not public. An SDK upgrade that renames it fails here.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { answerElicitations } from '../../src/kernel/mcp/elicitation.ts'

const FORM = { type: 'object' as const, properties: { name: { type: 'string' as const } } }

/** Resolves when the signal aborts. */
const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))

async function linked() {
  const asked: AbortSignal[] = []
  const roots: AbortSignal[] = []
  let heard: () => void = () => {}
  const client = new Client(
    { name: 'kernel', version: '1' },
    { capabilities: { elicitation: { form: {}, url: {} }, roots: { listChanged: true } } },
  )
  answerElicitations(client, {
    running: () => [],
    asker: () => async (_callId, _params, signal) => {
      asked.push(signal)
      heard()
      await aborted(signal)
      return { action: 'cancel' }
    },
    completed: () => {},
  })
  client.setRequestHandler(ListRootsRequestSchema, async (_req, extra) => {
    roots.push(extra.signal)
    heard()
    await aborted(extra.signal)
    return { roots: [] }
  })
  const server = new Server({ name: 'asker', version: '1' }, { capabilities: {} })
  const [a, b] = InMemoryTransport.createLinkedPair()
  await Promise.all([client.connect(a), server.connect(b)])
  /** Resolves once the client has the next request in hand. */
  const nextHeard = () => new Promise<void>((resolve) => (heard = resolve))
  return { client, server, asked, roots, nextHeard }
}

describe('the kernel’s MCP client: a server withdraws what it asked', () => {
  it('its first question (request id 0) and the next are withdrawn from the person', {
    timeout: 20_000,
  }, async () => {
    const { client, server, asked, nextHeard } = await linked()
    try {
      for (const n of [0, 1]) {
        const withdraw = new AbortController()
        const heard = nextHeard()
        const asking = server
          .elicitInput({ mode: 'form', message: 'Who?', requestedSchema: FORM }, { signal: withdraw.signal })
          .catch((err: Error) => err)
        await heard
        withdraw.abort('no longer needed')
        await aborted(asked[n])
        assert.ok(asked[n].aborted, `question ${n} withdrawn`)
        assert.ok((await asking) instanceof Error)
      }
    } finally {
      await client.close()
    }
  })

  it('a cancellation of another request reaches the SDK’s own handler', { timeout: 20_000 }, async () => {
    const { client, server, roots, nextHeard } = await linked()
    try {
      // Request id 0 is spent first: the SDK would drop its cancellation either way.
      const first = nextHeard()
      const spent = new AbortController()
      const spending = server.listRoots(undefined, { signal: spent.signal }).catch(() => {})
      await first
      spent.abort()
      await spending
      const heard = nextHeard()
      const withdraw = new AbortController()
      const listing = server.listRoots(undefined, { signal: withdraw.signal }).catch((err: Error) => err)
      await heard
      withdraw.abort('moved on')
      await aborted(roots[1])
      assert.ok(roots[1].aborted)
      assert.ok((await listing) instanceof Error)
      assert.equal(typeof (client as unknown as { _oncancel: unknown })._oncancel, 'function')
    } finally {
      await client.close()
    }
  })
})
