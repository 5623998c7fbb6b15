// POST /sessions/{id}/kernel/upgrade without HTTP: the session is held idle (409 otherwise),
// its kernel is moved onto one of the bundle on disk (src/kernel/upgrade.ts), each stage is a
// `kernel.stage_changed` event (and `kernel.stage` of reads), and the MCP servers it had
// loaded are loaded again on the new kernel. Nothing is replayed and no job is restarted.
import { type KernelUpgrade, type UpgradeStage, upgradeKernel } from '../../kernel/upgrade.ts'
import type { KernelUpgradeResult } from '../../schemas/kernel.ts'
import { problemBody } from '../../schemas/problems.ts'
import { selectionOf } from '../../sessions/views.ts'
import type { Runs } from '../engine.ts'
import { loadMcp } from './mcp.ts'

export function upgradeSessionKernel(runs: Runs, sessionId: string): Promise<KernelUpgradeResult> {
  return runs.holdIdle(sessionId, 'upgrade', async () => {
    const d = runs.deps
    const stage = (
      next: UpgradeStage | null,
      ended: Pick<KernelUpgradeResult, 'outcome' | 'instance_id'>,
    ) => {
      if (next) runs.kernelStages.set(sessionId, next)
      else runs.kernelStages.delete(sessionId)
      try {
        d.core.transact((tx) => {
          if (!d.core.row(sessionId)) return
          tx.append(sessionId, 'kernel.stage_changed', {
            stage: next,
            outcome: next ? null : ended.outcome,
            instance_id: ended.instance_id,
          })
        })
      } catch (err) {
        d.onError(err)
      }
    }
    const before = d.kernels.current(sessionId)?.instanceId ?? null
    // The swap gives the old kernel up, and its MCP servers with it: noted before.
    const hadMcp = (d.kernels.current(sessionId)?.mcp ?? null) !== null
    let staged = false
    let result: KernelUpgradeResult | undefined
    try {
      const done = await upgradeKernel(d.kernels, sessionId, (s) => {
        staged = true
        stage(s, { outcome: 'failed', instance_id: before })
      })
      if (done.outcome === 'upgraded') {
        // The new kernel loads the session's MCP servers again.
        if (hadMcp) {
          const row = d.core.require(sessionId)
          await loadMcp(d, done.to, row.workspace, selectionOf(row).mcp)
        }
        d.kernels.release(sessionId)
      } else if (done.outcome === 'failed' && done.from.alive) d.kernels.release(sessionId)
      result = resultOf(done)
      return result
    } finally {
      // Whatever happened, the stage ends (a failure thrown here is reported as failed).
      if (staged) stage(null, result ?? { outcome: 'failed', instance_id: before })
    }
  })
}

function resultOf(u: KernelUpgrade): KernelUpgradeResult {
  const none = {
    failed_stage: null,
    problem: null,
    previous_instance_id: null,
    instance_id: null,
    from_build: null,
    to_build: null,
    stopped_jobs: [],
  }
  const stopped = (jobs: { id: string; command: string; started_at: string; run_id: string }[]) =>
    jobs.map(({ id, command, started_at, run_id }) => ({ id, command, started_at, run_id }))
  switch (u.outcome) {
    case 'not_running':
      return { ...none, outcome: 'not_running' }
    case 'current':
      return {
        ...none,
        outcome: 'current',
        previous_instance_id: u.kernel.instanceId,
        instance_id: u.kernel.instanceId,
        from_build: u.kernel.build,
        to_build: u.kernel.build,
      }
    case 'upgraded':
      return {
        ...none,
        outcome: 'upgraded',
        previous_instance_id: u.from.instanceId,
        instance_id: u.to.instanceId,
        from_build: u.from.build,
        to_build: u.to.build,
        stopped_jobs: stopped(u.stopped),
      }
    case 'failed':
      return {
        ...none,
        outcome: 'failed',
        failed_stage: u.stage,
        problem: problemBody('kernel_upgrade_failed', u.detail),
        previous_instance_id: u.from.instanceId,
        instance_id: u.from.alive ? u.from.instanceId : null,
        from_build: u.from.build,
        to_build: u.from.alive ? u.from.build : null,
        stopped_jobs: stopped(u.stopped),
      }
  }
}
