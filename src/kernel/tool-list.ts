// The built-in tools a kernel runs, and how it makes a session's job manager.
import type { JobInfo, JobManager, ToolSpec } from '../tools/types.ts'

export const BUILTIN_TOOLS: readonly ToolSpec<never>[] = []

export function newJobManager(onChange: (jobs: JobInfo[]) => void): JobManager {
  void onChange
  throw new Error('Background jobs are not available')
}
