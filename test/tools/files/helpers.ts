// A real temp workspace and the context a file tool is called with. The file tools never
// touch jobs, the sandbox or progress; the job manager here refuses every call so a tool
// that did would fail its test.
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { JobManager, ToolContext, ToolResult, ToolSpec } from '../../../src/tools/types.ts'

export function tempDir(prefix = 'hearth-files-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)))
}

const noJobs: JobManager = {
  start: () => assert('jobs.start'),
  read: () => assert('jobs.read'),
  stop: () => assert('jobs.stop'),
  list: () => assert('jobs.list'),
  stopForRun: () => assert('jobs.stopForRun'),
  stopAll: () => assert('jobs.stopAll'),
}

function assert(what: string): never {
  throw new Error(`a file tool called ${what}`)
}

export function context(workspace: string, extra: Partial<ToolContext> = {}): ToolContext {
  return {
    workspace,
    allowedRoots: [],
    signal: new AbortController().signal,
    progress: () => assert('progress'),
    sandbox: { network: false, isolate: true },
    jobs: noJobs,
    runId: 'run-test',
    ...extra,
  }
}

/** Writes files (path → content) under a root, making directories as needed. */
export function files(root: string, tree: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(tree)) {
    const abs = join(root, rel)
    mkdirSync(dirname(abs), { recursive: true })
    writeFileSync(abs, content)
  }
}

/** Runs a tool with arguments the model might send (unchecked, as a hostile model would). */
export function call(tool: ToolSpec<any>, args: unknown, ctx: ToolContext): Promise<ToolResult> {
  return tool.run(args, ctx)
}
