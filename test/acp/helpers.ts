// An editor for the ACP tests: `hearth acp` spawned as an editor starts it (bin/hearth.mjs
// over real pipes), driven by the SDK's client side, with every session/update collected,
// permission requests answered by the test, and every line of the process's standard
// output kept to check that it is protocol and nothing else.
import { type ChildProcess, spawn } from 'node:child_process'
import { Readable, Writable } from 'node:stream'
import {
  type ClientConnection,
  type ClientContext,
  client,
  methods,
  ndJsonStream,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from '@agentclientprotocol/sdk'
import { BIN, pathWithThisNode } from '../helpers/daemon.ts'

export type PermissionHandler = (request: RequestPermissionRequest) => Promise<RequestPermissionResponse>

export interface AcpOptions {
  home: string
  args?: string[]
  env?: Record<string, string>
  /** How the editor answers permission requests (default: never answers). */
  onPermission?: PermissionHandler
}

/** A running `hearth acp` and the editor side of its connection. */
export class Editor {
  readonly child: ChildProcess
  readonly connection: ClientConnection
  readonly updates: SessionNotification[] = []
  readonly permissions: RequestPermissionRequest[] = []
  /** Every line the process wrote on standard output. */
  readonly stdoutLines: string[] = []
  stderr = ''
  onPermission: PermissionHandler
  readonly exited: Promise<number | null>
  readonly #waiters = new Set<() => void>()

  constructor(o: AcpOptions) {
    this.onPermission = o.onPermission ?? (() => new Promise(() => {}))
    this.child = spawn(BIN, ['acp', '--home', o.home, ...(o.args ?? [])], {
      env: { ...process.env, PATH: pathWithThisNode(), ...o.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)))
    this.child.stderr?.on('data', (d) => {
      this.stderr += d
    })
    let partial = ''
    const recorded = new Readable({ read() {} })
    this.child.stdout?.on('data', (d: Buffer) => {
      const text = partial + d.toString('utf8')
      const lines = text.split('\n')
      partial = lines.pop() ?? ''
      this.stdoutLines.push(...lines)
      recorded.push(d)
    })
    this.child.stdout?.on('end', () => recorded.push(null))
    const app = client({ name: 'test-editor' })
      .onNotification(methods.client.session.update, ({ params }) => {
        this.updates.push(params)
        this.#wake()
      })
      .onRequest(methods.client.session.requestPermission, ({ params }) => {
        this.permissions.push(params)
        this.#wake()
        return this.onPermission(params)
      })
    this.connection = app.connect(
      ndJsonStream(
        Writable.toWeb(this.child.stdin!) as WritableStream<Uint8Array>,
        Readable.toWeb(recorded) as ReadableStream<Uint8Array>,
      ),
    )
  }

  get agent(): ClientContext {
    return this.connection.agent
  }

  #wake(): void {
    for (const w of this.#waiters) w()
  }

  /** Resolves once `check` holds, re-checked at every update and permission request. */
  until<T>(check: () => T | undefined | false, ms = 30_000, what = 'the condition'): Promise<T> {
    return new Promise((resolve, reject) => {
      const first = check()
      if (first) return resolve(first)
      const timer = setTimeout(() => {
        this.#waiters.delete(test)
        reject(new Error(`timed out waiting for ${what}; stderr: ${this.stderr}`))
      }, ms)
      const test = () => {
        const v = check()
        if (!v) return
        clearTimeout(timer)
        this.#waiters.delete(test)
        resolve(v)
      }
      this.#waiters.add(test)
    })
  }

  /** The updates of one kind for a session, in order. */
  of(sessionId: string, kind: string): any[] {
    return this.updates
      .filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === kind)
      .map((u) => u.update)
  }

  /** The agent message text streamed for a session so far. */
  text(sessionId: string, kind = 'agent_message_chunk'): string {
    return this.of(sessionId, kind)
      .map((u) => u.content.text)
      .join('')
  }

  /** Every stdout line is a JSON-RPC 2.0 message: the stream carries nothing else. */
  assertStdoutIsProtocol(): void {
    for (const line of this.stdoutLines) {
      const m = JSON.parse(line)
      if (m.jsonrpc !== '2.0') throw new Error(`not a JSON-RPC message on stdout: ${line}`)
    }
  }

  /** Closes standard input, as an editor that quits does, and waits for the exit. */
  async close(): Promise<number | null> {
    this.child.stdin?.end()
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000)
    const code = await this.exited
    clearTimeout(timer)
    return code
  }
}

export async function initialized(o: AcpOptions): Promise<Editor> {
  const editor = new Editor(o)
  await editor.agent.request(methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: 'test-editor', version: '1' },
  })
  return editor
}

/** Answers every permission request with the option given. */
export const choose =
  (optionId: string): PermissionHandler =>
  async () => ({ outcome: { outcome: 'selected', optionId } })

export const allowOnce = choose('allow_once')

/** `word0 word1 …`: a text of n words, long enough to stream for a while. */
export const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i} `).join('')
