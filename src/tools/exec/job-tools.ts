// The job tools the model calls: job_start, job_output, job_stop, job_list. They work on the
// session's job manager (ctx.jobs); the job itself is src/tools/exec/jobs.ts.
import { type Static, Type } from 'typebox'
import type { JobInfo, ToolResult, ToolSpec } from '../types.ts'
import { oneLine } from './shell.ts'
import { resolveWorkdir } from './workdir.ts'

export const DEFAULT_READ_BYTES = 16 * 1024
/** What one job_output call returns at most (the model's context is the limit here). */
export const MAX_TOOL_READ_BYTES = 64 * 1024

const JobId = Type.String({ minLength: 1, maxLength: 64, description: 'The job id job_start returned.' })

export const JobStartArgs = Type.Object(
  {
    command: Type.String({ minLength: 1, description: 'The command line, run by `bash -lc`.' }),
    cwd: Type.Optional(
      Type.String({
        description: 'Directory to run in, relative to the workspace (default: the workspace).',
      }),
    ),
  },
  { additionalProperties: false },
)
export type JobStartArgs = Static<typeof JobStartArgs>

export const JobOutputArgs = Type.Object(
  {
    id: JobId,
    offset: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'Byte offset to read from: 0, or next_offset of the last read.',
      }),
    ),
    max_bytes: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_TOOL_READ_BYTES,
        description: `How much to read (default ${DEFAULT_READ_BYTES}).`,
      }),
    ),
  },
  { additionalProperties: false },
)
export type JobOutputArgs = Static<typeof JobOutputArgs>

export const JobStopArgs = Type.Object({ id: JobId }, { additionalProperties: false })
export type JobStopArgs = Static<typeof JobStopArgs>

export const JobListArgs = Type.Object({}, { additionalProperties: false })
export type JobListArgs = Static<typeof JobListArgs>

export const jobStartTool: ToolSpec<JobStartArgs> = {
  name: 'job_start',
  description:
    'Start a long-running command (a server, a watcher, a long build) in the background with `bash -lc` in ' +
    'the workspace, and return its id at once. Read what it prints with job_output, stop it with job_stop. ' +
    'It keeps running after this turn; it is stopped when the turn that started it is interrupted, and ' +
    'when the session ends.',
  parameters: JobStartArgs,
  effect: 'exec',
  summarize: (args) => `job: ${oneLine(args.command)}`,
  async run(args, ctx): Promise<ToolResult> {
    const where = resolveWorkdir(ctx.workspace, ctx.allowedRoots, args.cwd)
    if (!where.ok) return { outcome: 'error', output: where.message }
    const writableRoots = [ctx.workspace, ...ctx.allowedRoots]
    // A job is reported running once its command can start: after the session's snapshot.
    await ctx.shell?.snapshot({ cwd: where.dir, policy: ctx.sandbox, writableRoots })
    let job: JobInfo
    try {
      job = ctx.jobs.start(args.command, {
        cwd: where.dir,
        sandbox: ctx.sandbox,
        allowedRoots: writableRoots,
        runId: ctx.runId,
        shell: ctx.shell,
      })
    } catch (err) {
      return { outcome: 'error', output: `The job was not started: ${(err as Error).message}` }
    }
    return {
      outcome: 'ok',
      output: `Started job ${job.id}. Read its output with job_output {"id": "${job.id}", "offset": 0}.`,
      meta: { job },
    }
  },
}

export const jobOutputTool: ToolSpec<JobOutputArgs> = {
  name: 'job_output',
  description:
    'Read what a background job has printed (stdout and stderr together), from a byte offset. Returns the ' +
    'text, the next offset to read from, and whether the job is still running. Only the last few MB of a ' +
    'job that prints a lot are kept; the reply says how many bytes were dropped.',
  parameters: JobOutputArgs,
  effect: 'read',
  summarize: (args) => `job output ${args.id}`,
  async run(args, ctx): Promise<ToolResult> {
    const offset = args.offset ?? 0
    const out = ctx.jobs.read(
      args.id,
      offset,
      Math.min(args.max_bytes ?? DEFAULT_READ_BYTES, MAX_TOOL_READ_BYTES),
    )
    if (!out) return unknownJob(args.id)
    const notes = [`next_offset ${out.next_offset}`]
    if (out.skipped_bytes > 0) notes.push(`${out.skipped_bytes} bytes before it were dropped`)
    notes.push(out.state === 'running' ? 'job running' : `job ${out.state}, exit code ${out.exit_code}`)
    const text = out.text === '' ? '(no new output)' : out.text.replace(/\n$/, '')
    return {
      outcome: 'ok',
      output: `${text}\n[${notes.join('; ')}]`,
      meta: {
        id: args.id,
        offset,
        next_offset: out.next_offset,
        skipped_bytes: out.skipped_bytes,
        state: out.state,
        exit_code: out.exit_code,
      },
    }
  },
}

export const jobStopTool: ToolSpec<JobStopArgs> = {
  name: 'job_stop',
  description: 'Stop a background job and everything it started (SIGTERM, then SIGKILL after 2 s).',
  parameters: JobStopArgs,
  effect: 'exec',
  summarize: (args) => `job stop ${args.id}`,
  async run(args, ctx): Promise<ToolResult> {
    const job = await ctx.jobs.stop(args.id)
    if (!job) return unknownJob(args.id)
    return {
      outcome: 'ok',
      output: `Job ${job.id} is ${job.state} (exit code ${job.exit_code}).`,
      meta: { job },
    }
  },
}

export const jobListTool: ToolSpec<JobListArgs> = {
  name: 'job_list',
  description: "List this session's background jobs: id, state, exit code, output bytes and command.",
  parameters: JobListArgs,
  effect: 'read',
  summarize: () => 'job list',
  async run(_args, ctx): Promise<ToolResult> {
    const jobs = ctx.jobs.list()
    if (jobs.length === 0) return { outcome: 'ok', output: 'No jobs.', meta: { jobs } }
    const lines = jobs.map(
      (j) =>
        `${j.id}  ${j.state}${j.state === 'running' ? '' : ` (exit ${j.exit_code})`}  ${j.output_bytes} bytes  ${oneLine(j.command)}`,
    )
    return { outcome: 'ok', output: lines.join('\n'), meta: { jobs } }
  },
}

function unknownJob(id: string): ToolResult {
  return { outcome: 'error', output: `No job ${JSON.stringify(id)} in this session (job_list shows them).` }
}
