// One suite's setup for the ACP tests: a daemon whose default profile points at a scripted
// fake upstream, a workspace, and an initialized editor, all started before the suite's tests
// and closed after them (editors first, then the daemon, then the upstream). Called inside a
// `describe`; the tests read what it started through the getters of the object returned,
// which also sends the editor's usual requests.
//
// Two kinds of suite: `acpFixture` spawns `hearth acp` as an editor does (it starts the
// home's daemon if none runs, and keeps its standard output; see helpers.ts) next to
// `startWithUpstream`; `agentAcpFixture` spawns it with `--no-start` (see editor.ts) next to
// `startAgent`, whose `tools` settings and workspace it takes.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before } from 'node:test'
import { type ClientContext, type McpServer, methods } from '@agentclientprotocol/sdk'
import type { FakeOpenAIUpstream } from '../fakes/openai-upstream.ts'
import type { TestDaemon } from '../helpers/daemon.ts'
import { type Setup, startWithUpstream } from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'
import { type AgentOptions, type AgentSetup, startAgent } from '../tools/agent-helpers.ts'
import { type Editor as StartedEditor, startEditor } from './editor.ts'
import { type Editor, initialized, type PermissionHandler } from './helpers.ts'

interface Started {
  d: TestDaemon
  upstream: FakeOpenAIUpstream
}

interface EditorSide {
  readonly agent: ClientContext
  close(): Promise<unknown>
}

interface SuiteParts<S extends Started, E extends EditorSide> {
  start(): Promise<{ s: S; workspace: string }>
  /** Runs between the daemon's start and the editor's (files, settings, history to load). */
  prepare?(s: S): Promise<unknown>
  open(s: S): Promise<E>
}

function suiteFixture<S extends Started, E extends EditorSide>(parts: SuiteParts<S, E>) {
  let started: { s: S; workspace: string } | undefined
  let first: E | undefined
  const others: E[] = []
  before(async () => {
    started = await parts.start()
    await parts.prepare?.(started.s)
    first = await parts.open(started.s)
  })
  after(async () => {
    await first?.close()
    for (const other of others) await other.close()
    await started?.s.d.stop()
    await started?.s.upstream.close()
  })
  const ready = () => {
    if (!started || !first) throw new Error('the fixture starts before the suite')
    return { ...started, editor: first }
  }
  return {
    /** The daemon and its upstream (a test may put a restarted daemon in `s.d`). */
    get s(): S {
      return ready().s
    },
    get editor(): E {
      return ready().editor
    },
    get workspace(): string {
      return ready().workspace
    },
    /** Another editor on the same home, closed with the suite before the daemon stops. */
    openEditor: async (): Promise<E> => {
      const other = await parts.open(ready().s)
      others.push(other)
      return other
    },
    /** A new session in the workspace, made through the daemon (as another client does). */
    newSession: (): Promise<string> =>
      createSession(ready().s.d, { kind: 'new', workspace: ready().workspace }),
    /** session/new from the editor in the workspace. */
    editorSession: (mcpServers: McpServer[] = [], editor: E = ready().editor) =>
      editor.agent.request(methods.agent.session.new, { cwd: ready().workspace, mcpServers }),
    /** session/prompt with one text block. */
    prompt: (sessionId: string, text: string, editor: E = ready().editor) =>
      editor.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] }),
    cancel: (sessionId: string, editor: E = ready().editor) =>
      editor.agent.notify(methods.agent.session.cancel, { sessionId }),
  }
}

/** `startWithUpstream`, a workspace `hearth-acp-PREFIX-…`, and `hearth acp` as an editor starts it. */
export function acpFixture(prefix: string, o: { onPermission?: PermissionHandler } = {}) {
  return suiteFixture<Setup, Editor>({
    start: async () => ({
      s: await startWithUpstream(),
      workspace: mkdtempSync(join(tmpdir(), `hearth-acp-${prefix}-`)),
    }),
    open: (s) => initialized({ home: s.d.home, onPermission: o.onPermission }),
  })
}

/** `startAgent` (its workspace) and `hearth acp --no-start`. */
export function agentAcpFixture(
  o: { tools?: AgentOptions['tools']; prepare?: (s: AgentSetup) => Promise<unknown> } = {},
) {
  return suiteFixture<AgentSetup, StartedEditor>({
    start: async () => {
      const s = await startAgent({ tools: o.tools })
      return { s, workspace: s.workspace }
    },
    prepare: o.prepare,
    open: (s) => startEditor(s.home),
  })
}
