// The kernel process: runs the steps of the sessions the daemon gives it, each keyed by its
// step id. It streams the provider's answer and reports neutral events to the daemon, and
// runs the tool calls and background jobs of its sessions by run id (tools-host.ts); it holds no
// durable state and never opens the database, so a crash here fails its runs, never the
// daemon. It warms itself (warm.ts) and probes the sandbox before it says it is ready.
import { BUILD } from '../build-info.ts'
import { resolveHome } from '../home.ts'
import { fitRequestImages } from '../inputs/images.ts'
import { transportFor } from '../providers/transports.ts'
import type { NeutralEvent } from '../providers/types.ts'
import { sandboxStatusAsync, watchProcessGroups } from '../tools/exec/index.ts'
import { setHearthHome } from '../tools/files/index.ts'
import { compactWhenIdle } from '../util/compact-heap.ts'
import { McpHost } from './mcp/host.ts'
import { type CallRequest, type FromKernel, KERNEL_PROTOCOL, type ToKernel } from './protocol.ts'
import { ToolHost } from './tools-host.ts'
import { setKernelV8Flags } from './v8-flags.ts'
import { COMPACT_AFTER_READY_MS, warmUp } from './warm.ts'

const instanceId = process.env.HEARTH_KERNEL_INSTANCE ?? 'unknown'
const steps = new Map<string, AbortController>()

/**
 * Messages that wait to leave with the next one (post): each write to the channel wakes the
 * daemon's thread, which on a busy machine may wait for a core each time. A step's last
 * events and the check of its calls leave as one message (`batch`), at once.
 */
let outbox: FromKernel[] = []
let outboxFlush: NodeJS.Immediate | undefined

/** Sends `msg` now, after whatever waits in the outbox, in one write. */
function send(msg: FromKernel): void {
  if (msg.type === 'tool_result' && msg.early) earlyAnswered.note(msg.run_id, msg.call_id)
  // `ready` and `pong` go alone: an upgrade's check listens for them by themselves.
  if (msg.type === 'ready' || msg.type === 'pong') {
    flushOutbox()
    write(msg)
    return
  }
  outbox.push(msg)
  flushOutbox()
}

/** Queues `msg` to leave with the next `send` (at the latest at the end of this turn of the event loop). */
function post(msg: FromKernel): void {
  outbox.push(msg)
  outboxFlush ??= setImmediate(flushOutbox)
}

function flushOutbox(): void {
  if (outboxFlush) clearImmediate(outboxFlush)
  outboxFlush = undefined
  if (outbox.length === 0) return
  const messages = outbox
  outbox = []
  write(messages.length === 1 ? messages[0] : { type: 'batch', messages })
}

function write(msg: FromKernel): void {
  // A daemon killed with -9 leaves a closed channel: writing to it must end this process
  // quietly (no unhandled EPIPE), since nobody is left to read its events.
  if (!process.connected) {
    quit()
    return
  }
  process.send?.(msg, undefined, {}, (err) => {
    if (err) quit()
  })
}

/**
 * Reads started as their step ended whose result went to the daemon unasked. The daemon asks
 * for a call when it comes to it, and its `tool` can cross that result on the channel; the
 * result it already has answers it (the daemon takes the first result of a call), so the
 * read is not run a second time. Keys leave when asked for or when the run's next step comes.
 */
const earlyAnswered = {
  keys: new Set<string>(),
  note(runId: string, callId: string): void {
    // Bounded: a run interrupted before asking leaves its keys until another step comes.
    if (this.keys.size >= 1024) this.keys.delete(this.keys.values().next().value as string)
    this.keys.add(`${runId}\0${callId}`)
  },
  take(runId: string, callId: string): boolean {
    return this.keys.delete(`${runId}\0${callId}`)
  },
  forget(runId: string): void {
    for (const k of this.keys) if (k.startsWith(`${runId}\0`)) this.keys.delete(k)
  },
}

let quitting = false
/** Ends this process; its jobs (children in their own process groups) go first. */
function quit(): void {
  if (quitting) return
  quitting = true
  void Promise.all([tools.stopAll(), mcp.closeAll()]).finally(() => process.exit(0))
}

async function runStep(msg: Extract<ToKernel, { type: 'step' }>): Promise<void> {
  // A new step of a run: what the last one read early and nobody asked for is dropped.
  if (msg.run_id !== null) {
    tools.forgetEarlyReads(msg.run_id)
    earlyAnswered.forget(msg.run_id)
  }
  const abort = new AbortController()
  steps.set(msg.step_id, abort)
  const sessionId = msg.tool_context?.session_id
  // Events are batched per tick of the event loop: the first delta goes out at once, a
  // burst of deltas read from one network chunk travels as one message.
  let batch: NeutralEvent[] = []
  const calls: CallRequest[] = []
  const flush = (how: (m: FromKernel) => void = send) => {
    if (batch.length === 0) return
    how({ type: 'events', step_id: msg.step_id, events: batch })
    batch = []
  }
  try {
    const transport = transportFor(msg.extension)
    if (!transport) {
      batch.push({
        type: 'error',
        code: 'upstream_rejected',
        message: `No transport for ${msg.extension}`,
        status: null,
      })
    } else {
      // Scaled here, in the session's own process, as the request goes out: the history
      // keeps each image as it came, and the profile may change between steps.
      const edge = msg.profile.image_edge
      const request = edge ? await fitRequestImages(msg.request, edge) : msg.request
      for await (const e of transport.stream(msg.profile, request, {
        signal: abort.signal,
        idleTimeoutMs: msg.limits.idle_timeout_ms,
        maxRetries: msg.limits.max_retries,
      })) {
        if (batch.length === 0) setImmediate(() => flush())
        batch.push(e)
        if (e.type === 'tool_call') calls.push({ call_id: e.id, name: e.name, arguments: e.arguments })
        // The step's end goes on at once, not after the stream closes: its events and the
        // check of its calls, in one message (the check's send carries the events).
        if (e.type === 'done') {
          if (calls.length === 0) flush()
          else {
            flush(post)
            tools.check(msg, sessionId, calls.splice(0), msg.tool_context)
          }
        }
      }
    }
  } catch (err) {
    batch.push({
      type: 'error',
      code: 'upstream_malformed',
      message: String((err as Error)?.message ?? err),
      status: null,
    })
  } finally {
    flush()
    // The calls are checked by the kernel unasked: the daemon needs their summaries and
    // effects before it can record the step, and asking would cost a round trip.
    if (calls.length > 0) tools.check(msg, sessionId, calls)
    steps.delete(msg.step_id)
    send({ type: 'step_ended', step_id: msg.step_id })
  }
}

const mcp = new McpHost(send)
const tools = new ToolHost(send, mcp)
// The daemon keeps the latest set, to kill what a crash of this process would leave.
let groups: number[] = []
let groupsPending = false
watchProcessGroups((pgids) => {
  groups = pgids
  if (groupsPending) return
  groupsPending = true
  setImmediate(() => {
    groupsPending = false
    send({ type: 'groups', pgids: groups })
  })
})

process.on('message', (msg: ToKernel) => {
  if (msg.type === 'step') void runStep(msg)
  else if (msg.type === 'abort') {
    if (msg.step_id !== null) steps.get(msg.step_id)?.abort()
    if (msg.run_id !== null) tools.abort(msg.run_id)
  } else if (msg.type === 'tool') {
    if (!earlyAnswered.take(msg.run_id, msg.call.call_id)) void tools.run(msg)
  }
  // The session was deleted: its jobs and its MCP servers stop.
  else if (msg.type === 'stop_jobs') {
    void tools.stopJobs(msg.session_id)
    void mcp.close(msg.session_id)
  } else if (msg.type === 'mcp_load')
    void mcp.load(msg.session_id, msg.load_id, msg.servers, msg.roots, msg.retry === true)
  else if (msg.type === 'mcp_token') mcp.tokenAnswered(msg)
  else if (msg.type === 'mcp_roots') mcp.rootsChanged(msg.session_id, msg.roots)
  else if (msg.type === 'mcp_elicit_answer') mcp.elicitations.answer(msg.elicit_id, msg.result)
  else if (msg.type === 'mcp_close') {
    void mcp.close(msg.session_id)
    tools.releaseShell(msg.session_id)
  }
  // Jobs are stopped with their process groups before the process goes.
  else if (msg.type === 'shutdown') quit()
  else if (msg.type === 'ping') send({ type: 'pong', id: msg.id, build: BUILD, protocol: KERNEL_PROTOCOL })
})
// The daemon going away closes the channel: a kernel never outlives its daemon.
process.on('disconnect', quit)
// Paths in hearth's home (token, keys) are refused to file tools whatever the roots say.
setHearthHome(resolveHome(undefined))
// Before the warm-up's first fetch compiles the HTTP parser (v8-flags.ts says why).
setKernelV8Flags()
const warmStart = performance.now()
// The sandbox probe (running bwrap once) overlaps the warm-up requests.
const [warmed, sandbox] = await Promise.all([warmUp(), sandboxStatusAsync()])
send({
  type: 'ready',
  instance_id: instanceId,
  build: BUILD,
  protocol: KERNEL_PROTOCOL,
  warm_turns: warmed,
  warm_ms: performance.now() - warmStart,
  tools: tools.offered(),
  sandbox,
})
// A reserve process gives back what its warm-up left, unless a step came at once, then warms
// up again (warm.ts).
compactWhenIdle(
  () => steps.size === 0,
  COMPACT_AFTER_READY_MS,
  () => void warmUp(),
)
