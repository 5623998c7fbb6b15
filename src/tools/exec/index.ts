// Command execution for the kernel: the `shell` tool, background jobs and their tools, the
// sandbox (bubblewrap) and the scrubbed environment. docs/tools-exec.md describes them.
import type { ToolSpec } from '../types.ts'
import { jobListTool, jobOutputTool, jobStartTool, jobStopTool } from './job-tools.ts'
import { createShellTool, type ExecToolOptions } from './shell.ts'

export { commandEnv, isSecretName } from './env.ts'
export { createJobManager, type JobManagerOptions } from './jobs.ts'
export { watchProcessGroups } from './process.ts'
export { isolates, sandboxStatus, sandboxStatusAsync } from './sandbox.ts'
export type { ExecToolOptions } from './shell.ts'

/** The exec tools with `opts` (hearth's home to hide: pass the daemon's when it is not the default). */
export function createExecTools(opts: ExecToolOptions = {}): ToolSpec[] {
  return [createShellTool(opts), jobStartTool, jobOutputTool, jobStopTool, jobListTool]
}

/** The exec tools, hiding the home HEARTH_HOME names (or ~/.hearth). */
export const execTools: ToolSpec[] = createExecTools()
