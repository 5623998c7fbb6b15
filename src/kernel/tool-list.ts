// The built-in tools a kernel runs, and how it makes a session's job manager.
import { createJobManager, execTools } from '../tools/exec/index.ts'
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
