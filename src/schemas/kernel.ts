// Group `kernel`: POST /sessions/{id}/kernel/upgrade moves an idle session onto a kernel of
// the bundle on disk (docs/kernels.md): stage, validate, then swap; jobs the swap stopped are
// reported, never restarted.
import type { Static } from 'typebox'
import * as Type from 'typebox'
import { Nullable, Timestamp } from './common.ts'
import { Problem } from './problems.ts'

export const KernelStage = Type.Enum(['staging', 'validating', 'swapping'])

export const StoppedJob = Type.Object(
  {
    id: Type.String(),
    command: Type.String(),
    started_at: Timestamp,
    run_id: Type.String({ description: 'The run that started it' }),
  },
  { additionalProperties: false },
)

export const KernelUpgradeResult = Type.Object(
  {
    outcome: Type.Enum(['upgraded', 'current', 'not_running', 'failed'], {
      description:
        '`upgraded`: the session runs on a new kernel of the bundle on disk; `current`: its kernel already ran that bundle, nothing was done; `not_running`: it has no kernel, nothing to swap (its next run starts on the bundle on disk); `failed`: see `failed_stage` and `problem`, the session keeps its kernel',
    }),
    failed_stage: Nullable(
      Type.Enum(['staging', 'validating', 'swapping'], {
        description: 'The stage that failed (`failed` only)',
      }),
    ),
    problem: Nullable(Problem),
    previous_instance_id: Nullable(Type.String({ description: 'The kernel instance before the upgrade' })),
    instance_id: Nullable(
      Type.String({ description: "The session's kernel instance now (the previous one unless upgraded)" }),
    ),
    from_build: Nullable(Type.String({ description: 'Build of the kernel before the upgrade' })),
    to_build: Nullable(Type.String({ description: "Build of the session's kernel now" })),
    stopped_jobs: Type.Array(StoppedJob, {
      description:
        'Background jobs the swap stopped (they ran on the old kernel and cannot move); they are not restarted. Empty when staging or validation failed: jobs are touched only after the new kernel passed validation',
    }),
  },
  { additionalProperties: false, $id: 'KernelUpgradeResult' },
)
export type KernelUpgradeResult = Static<typeof KernelUpgradeResult>
