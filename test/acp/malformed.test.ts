// Malformed JSON-RPC on `hearth acp`'s standard input: each gets a clear JSON-RPC error and
// the process keeps serving (the initialize after them is answered). Driven line by line,
// as a buggy editor would write them.
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { after, before, describe, it } from 'node:test'
import { BIN, pathWithThisNode, startDaemon, type TestDaemon } from '../helpers/daemon.ts'

class RawAgent {
  readonly child: ChildProcess
  readonly lines: any[] = []
  #partial = ''
  #waiting: (() => void) | undefined

  constructor(home: string) {
    this.child = spawn(BIN, ['acp', '--home', home], {
      env: { ...process.env, PATH: pathWithThisNode() },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    this.child.stdout?.on('data', (d: Buffer) => {
      const parts = (this.#partial + d.toString('utf8')).split('\n')
      this.#partial = parts.pop() ?? ''
      for (const p of parts) this.lines.push(JSON.parse(p)) // a line that is not JSON fails the test
      this.#waiting?.()
    })
  }

  /** Writes one line and resolves with the next message written back. */
  async send(line: string): Promise<any> {
    const seen = this.lines.length
    this.child.stdin?.write(`${line}\n`)
    while (this.lines.length === seen) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer to ${line}`)), 15_000)
        this.#waiting = () => {
          clearTimeout(timer)
          resolve()
        }
      })
    }
    return this.lines[seen]
  }
}

describe('hearth acp: malformed JSON-RPC', () => {
  let d: TestDaemon
  let agent: RawAgent
  before(async () => {
    d = await startDaemon()
    agent = new RawAgent(d.home)
  })
  after(async () => {
    agent.child.stdin?.end()
    await new Promise((r) => agent.child.once('exit', r))
    await d.stop()
  })

  it('answers a line that is not JSON with a parse error naming the line', async () => {
    const m = await agent.send('{"jsonrpc": "2.0", "id": 1, "method": ')
    assert.equal(m.id, null)
    assert.equal(m.error.code, -32700)
    assert.match(m.error.message, /^Parse error: line 1 is not JSON \(.+\)$/)
  })

  it('refuses a batch, a bare value and a message without jsonrpc as invalid requests', async () => {
    for (const line of [
      '[{"jsonrpc":"2.0","id":1,"method":"initialize"}]',
      '42',
      '{"id":5,"method":"initialize"}',
    ]) {
      const m = await agent.send(line)
      assert.equal(m.error.code, -32600, line)
      assert.equal(m.id, null)
    }
  })

  it('refuses a request before initialize, then initializes and keeps serving', async () => {
    const early = await agent.send('{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{}}')
    assert.equal(early.id, 2)
    assert.equal(early.error.code, -32600)
    assert.match(early.error.message, /initialized/)
    const init = await agent.send(
      '{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":1}}',
    )
    assert.equal(init.id, 3)
    assert.equal(init.result.protocolVersion, 1)
  })

  it('answers an unknown method and invalid params with their errors', async () => {
    const unknown = await agent.send('{"jsonrpc":"2.0","id":4,"method":"no/such"}')
    assert.equal(unknown.error.code, -32601)
    const invalid = await agent.send(
      '{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"prompt":7}}',
    )
    assert.equal(invalid.id, 5)
    assert.equal(invalid.error.code, -32602)
    // Still serving.
    const again = await agent.send(
      '{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"protocolVersion":1}}',
    )
    assert.equal(again.result.agentInfo.name, 'hearth')
  })
})
