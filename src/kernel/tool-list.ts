// The built-in tools a kernel runs, and how it makes a session's job manager and shell. The
// kernel loads this module on a step's first use of tools (tools-host.ts says how).
import { createJobManager, execTools } from '../tools/exec/index.ts'
import { ShellSession } from '../tools/exec/session.ts'
import { fileTools } from '../tools/files/index.ts'
import { skillTool } from '../tools/skill.ts'
import type { JobInfo, JobManager, ToolSpec } from '../tools/types.ts'

export const BUILTIN_TOOLS: readonly ToolSpec<never>[] = [
  ...fileTools,
  ...execTools,
  skillTool as ToolSpec<never>,
]

export function newJobManager(onChange: (jobs: JobInfo[]) => void): JobManager {
  return createJobManager({ onChange })
}

export function newShellSession(onNotice: (message: string) => void): ShellSession {
  return new ShellSession({ onNotice })
}
