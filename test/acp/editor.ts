// An editor for the ACP tests of sessions: `hearth acp` spawned over real pipes (as Zed
// starts it), driven by the SDK's own client side (`client().connect(ndJsonStream(…))`), with
// every session/update it is sent kept in order. Permission requests are answered by the
// test's `onPermission` (default: cancelled, which leaves the approval pending).
import type { ChildProcess } from 'node:child_process'
import { spawn } from 'node:child_process'
import { Readable, Writable } from 'node:stream'
import {
  type ClientConnection,
  client,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from '@agentclientprotocol/sdk'
import { BIN, until } from '../helpers/daemon.ts'

export interface EditorOptions {
  onPermission?: (req: RequestPermissionRequest) => RequestPermissionResponse
  clientCapabilities?: Record<string, unknown>
}

export class Editor {
  readonly proc: ChildProcess
  readonly conn: ClientConnection
  readonly updates: SessionNotification[] = []
  stderr = ''

  constructor(proc: ChildProcess, conn: ClientConnection) {
    this.proc = proc
    this.conn = conn
  }

  get agent() {
    return this.conn.agent
  }

  /** The updates of one session (optionally only the kind given), in order. */
  of(sessionId: string, kind?: string): any[] {
    return this.updates
      .filter((n) => n.sessionId === sessionId && (!kind || n.update.sessionUpdate === kind))
      .map((n) => n.update)
  }

  /** The text of a session's chunks of one kind, joined. */
  text(sessionId: string, kind: string): string {
    return this.of(sessionId, kind)
      .map((u) => (u.content?.type === 'text' ? u.content.text : ''))
      .join('')
  }

  /** Waits until `probe` holds over the updates received. */
  waitFor<T>(what: string, probe: () => T | undefined | false, ms = 30_000): Promise<T> {
    return until(what, probe, ms, 5)
  }

  async close(): Promise<void> {
    this.conn.close()
    this.proc.stdin?.end()
    if (this.proc.exitCode === null && this.proc.signalCode === null) {
      const exited = new Promise((r) => this.proc.once('exit', r))
      const timer = setTimeout(() => this.proc.kill('SIGKILL'), 3000)
      await exited
      clearTimeout(timer)
    }
  }
}

/** Starts `hearth acp --home HOME --no-start` and initializes it. */
export async function startEditor(home: string, opts: EditorOptions = {}): Promise<Editor> {
  const proc = spawn(process.execPath, [BIN, 'acp', '--home', home, '--no-start'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, HEARTH_NO_BROWSER: '1' },
  })
  let editor: Editor | undefined
  const app = client({ name: 'test-editor' })
    .onNotification(methods.client.session.update, ({ params }) => {
      editor?.updates.push(params)
    })
    .onRequest(methods.client.session.requestPermission, ({ params }) =>
      opts.onPermission ? opts.onPermission(params) : { outcome: { outcome: 'cancelled' } },
    )
  const conn = app.connect(
    ndJsonStream(
      Writable.toWeb(proc.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(proc.stdout) as ReadableStream<Uint8Array>,
    ),
  )
  editor = new Editor(proc, conn)
  proc.stderr.on('data', (d) => {
    if (editor) editor.stderr += d
  })
  await conn.agent.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: {
      fs: { readTextFile: false, writeTextFile: false },
      terminal: false,
      ...opts.clientCapabilities,
    },
    clientInfo: { name: 'test-editor', version: '1.0.0' },
  })
  return editor
}

/** The JSON-RPC error a request fails with (fails the test when it succeeds). */
export async function rpcError(p: Promise<unknown>): Promise<{ code: number; message: string; data?: any }> {
  try {
    await p
  } catch (err) {
    return err as { code: number; message: string; data?: any }
  }
  throw new Error('the request succeeded')
}
