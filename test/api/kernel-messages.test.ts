// How a kernel process (dist/kernel.mjs, forked as the daemon forks it) answers a step on
// its channel: a step that asks for a call ends in one message, the step's last events and
// the check of its calls, instead of one write each (each write wakes the daemon). The
// upstream is a Responses server on loopback.
import assert from 'node:assert/strict'
import { type ChildProcess, fork } from 'node:child_process'
import { rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { FromKernel } from '../../src/kernel/protocol.ts'
import { tempHome } from '../helpers/daemon.ts'
import { DIST } from './kernel-bundle.ts'

const frame = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`

/** A Responses stream of one `read` call, all in one write. */
function callReply(): string {
  const item = { id: 'fc', type: 'function_call', call_id: 'call_1', name: 'read', arguments: '' }
  const done = { ...item, arguments: '{"path":"x.txt"}', status: 'completed' }
  return [
    frame({ type: 'response.created', response: { id: 'r' } }),
    frame({ type: 'response.output_item.added', output_index: 0, item }),
    frame({ type: 'response.output_item.done', output_index: 0, item: done }),
    frame({ type: 'response.completed', response: { id: 'r', status: 'completed', output: [done] } }),
  ].join('')
}

describe('kernel messages', () => {
  let upstream: Server
  let url = ''
  let kernel: ChildProcess
  let home = ''
  /** Every message as it came off the channel, unpacked or not. */
  const raw: FromKernel[] = []

  before(async () => {
    upstream = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.end(callReply())
      })
    })
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r))
    url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`
    home = tempHome()
    kernel = fork(join(DIST, 'kernel.mjs'), [], {
      env: { ...process.env, HEARTH_HOME: home, HEARTH_KERNEL_INSTANCE: 'test' },
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    kernel.on('message', (m: FromKernel) => raw.push(m))
    await new Promise<void>((resolve) => {
      kernel.on('message', (m: FromKernel) => m.type === 'ready' && resolve())
    })
  })

  after(async () => {
    kernel.kill('SIGKILL')
    upstream.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('a step that asks for a call ends in one message: its last events with the check of its calls', async () => {
    const ended = new Promise<void>((resolve) => {
      kernel.on(
        'message',
        (m: FromKernel) => m.type === 'step_ended' && m.step_id === 'run1:step:1' && resolve(),
      )
    })
    const from = raw.length
    kernel.send({
      type: 'step',
      step_id: 'run1:step:1',
      run_id: null,
      extension: 'openai-compatible',
      profile: { endpoint: url, protocol: 'responses', model: 'm', api_key: null },
      limits: {},
      request: {
        model: 'm',
        effort: null,
        system: null,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'read it' }] }],
        tools: [],
        session_id: 's1',
      },
    })
    await ended
    const mine = raw.slice(from)
    const types = mine.map((m) => (m.type === 'batch' ? `batch(${m.messages.map((x) => x.type)})` : m.type))
    // The step's end in one write, then step_ended as the stream closes.
    assert.equal(types.at(-2), 'batch(events,checked)', `the step's messages: ${types.join(' ')}`)
    assert.equal(types.at(-1), 'step_ended')
    const [events, checked] = (mine.at(-2) as Extract<FromKernel, { type: 'batch' }>).messages as [
      Extract<FromKernel, { type: 'events' }>,
      Extract<FromKernel, { type: 'checked' }>,
    ]
    assert.equal(events.events.at(-1)?.type, 'done')
    assert.deepEqual(
      checked.calls.map((c) => [c.call_id, c.ok, c.summary.startsWith('read')]),
      [['call_1', true, true]],
    )
  })
})
