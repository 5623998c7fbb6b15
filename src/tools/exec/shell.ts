// The `shell` tool: one command, run by bash with the user's login profile (process.ts) in
// the workspace, to its end or its timeout. Its output streams to clients as it comes
// (ctx.progress) and goes back to the model capped, head and tail kept. An interrupt or the timeout stops the whole process group; what it
// printed until then is kept.
import { type Static, Type } from 'typebox'
import type { ToolContext, ToolResult, ToolSpec } from '../types.ts'
import { HeadTailCapture, OUTPUT_CAP_BYTES } from './capture.ts'
import { type CommandEnd, type OutputStream, startCommand } from './process.ts'
import { resolveWorkdir } from './workdir.ts'

export const DEFAULT_TIMEOUT_S = 120
export const MAX_TIMEOUT_S = 600

export const ShellArgs = Type.Object(
  {
    command: Type.String({ minLength: 1, description: 'The command line, run by `bash -lc`.' }),
    cwd: Type.Optional(
      Type.String({
        description: 'Directory to run in, relative to the workspace (default: the workspace).',
      }),
    ),
    timeout_seconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_TIMEOUT_S,
        description: `Stop the command after this many seconds (default ${DEFAULT_TIMEOUT_S}, at most ${MAX_TIMEOUT_S}).`,
      }),
    ),
  },
  { additionalProperties: false },
)
export type ShellArgs = Static<typeof ShellArgs>

export interface ExecToolOptions {
  /** Hearth's home, hidden from commands in the sandbox (default: HEARTH_HOME or ~/.hearth). */
  home?: string
  /** The cap on the output the model gets back, in bytes. */
  outputCapBytes?: number
}

const DESCRIPTION = [
  'Run a shell command (`bash -lc`) in the workspace and return its output and exit code.',
  'stdout and stderr are returned together, in the order they were written; a long output keeps',
  `its beginning and its end (about ${OUTPUT_CAP_BYTES / 1024} KB in all). The command is stopped after`,
  `timeout_seconds (default ${DEFAULT_TIMEOUT_S}); anything it leaves running in the background is`,
  'stopped when it exits, so use job_start for servers and watchers. stdin is empty: do not run',
  'interactive programs. Network access depends on the session policy.',
].join(' ')

export function createShellTool(opts: ExecToolOptions = {}): ToolSpec<ShellArgs> {
  return {
    name: 'shell',
    description: DESCRIPTION,
    parameters: ShellArgs,
    effect: 'exec',
    summarize: (args) => `shell: ${oneLine(args.command)}`,
    run: (args, ctx) => runShell(args, ctx, opts),
  }
}

async function runShell(args: ShellArgs, ctx: ToolContext, opts: ExecToolOptions): Promise<ToolResult> {
  const where = resolveWorkdir(ctx.workspace, ctx.allowedRoots, args.cwd)
  if (!where.ok) return { outcome: 'error', output: where.message }
  if (ctx.signal.aborted)
    return { outcome: 'interrupted', output: 'The command was not started: interrupted.' }
  const timeoutS = Math.min(Math.max(1, Math.trunc(args.timeout_seconds ?? DEFAULT_TIMEOUT_S)), MAX_TIMEOUT_S)
  const started = performance.now()
  const capture = new HeadTailCapture(opts.outputCapBytes ?? OUTPUT_CAP_BYTES)
  const relay = new Relay(capture, ctx)
  const cmd = startCommand({
    command: args.command,
    cwd: where.dir,
    policy: ctx.sandbox,
    writableRoots: [ctx.workspace, ...ctx.allowedRoots],
    home: opts.home,
    shell: ctx.shell,
    onOutput: (stream, chunk) => relay.push(stream, chunk),
  })

  let stoppedBy: 'timeout' | 'interrupt' | null = null
  const stop = (why: 'timeout' | 'interrupt') => {
    // Once the shell has exited, its leftovers are being stopped already and the command
    // itself did end: that is not a timeout.
    if (cmd.exited) return
    stoppedBy ??= why
    void cmd.stop()
  }
  const timer = setTimeout(() => stop('timeout'), timeoutS * 1000)
  const onAbort = () => stop('interrupt')
  ctx.signal.addEventListener('abort', onAbort, { once: true })
  const end = await cmd.done
  relay.end()
  clearTimeout(timer)
  ctx.signal.removeEventListener('abort', onAbort)
  return result(end, capture, {
    stoppedBy,
    timeoutS,
    sandboxed: cmd.sandboxed,
    ms: performance.now() - started,
    cwd: where.dir,
  })
}

/** Streams output to ctx.progress (UTF-8 decoded across chunk borders) and into the capture. */
class Relay {
  readonly #decoders = { stdout: new TextDecoder('utf-8'), stderr: new TextDecoder('utf-8') }
  readonly #capture: HeadTailCapture
  readonly #ctx: ToolContext

  constructor(capture: HeadTailCapture, ctx: ToolContext) {
    this.#capture = capture
    this.#ctx = ctx
  }

  push(stream: OutputStream, chunk: Buffer): void {
    this.#capture.push(chunk)
    const text = this.#decoders[stream].decode(chunk, { stream: true })
    if (text) this.#ctx.progress({ stream, text })
  }

  /** A character cut short at the very end goes out as it is. */
  end(): void {
    for (const stream of ['stdout', 'stderr'] as const) {
      const rest = this.#decoders[stream].decode()
      if (rest) this.#ctx.progress({ stream, text: rest })
    }
  }
}

interface RunFacts {
  stoppedBy: 'timeout' | 'interrupt' | null
  timeoutS: number
  sandboxed: boolean
  ms: number
  cwd: string
}

function result(end: CommandEnd, capture: HeadTailCapture, facts: RunFacts): ToolResult {
  const meta = {
    exit_code: end.exitCode,
    signal: end.signal,
    duration_ms: Math.round(facts.ms),
    output_bytes: capture.totalBytes,
    truncated_bytes: capture.cutBytes,
    cwd: facts.cwd,
    sandbox: facts.sandboxed ? 'bubblewrap' : 'none',
  }
  if (end.error)
    return { outcome: 'error', output: `The command could not be started: ${end.error.message}`, meta }
  const text = capture.text()
  const body = text === '' ? '(no output)' : text.endsWith('\n') ? text.slice(0, -1) : text
  if (facts.stoppedBy === 'timeout')
    return { outcome: 'timeout', output: `${body}\n[stopped: no end after ${facts.timeoutS} s]`, meta }
  if (facts.stoppedBy === 'interrupt')
    return { outcome: 'interrupted', output: `${body}\n[stopped: interrupted]`, meta }
  return { outcome: 'ok', output: `${body}\n[exit code ${end.exitCode}]`, meta }
}

/** A command on one line, shortened, for summaries. */
export function oneLine(command: string): string {
  const line = command.replace(/\s+/g, ' ').trim()
  return line.length > 120 ? `${line.slice(0, 119)}…` : line
}
