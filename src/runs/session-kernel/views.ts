// What session reads and streams show of kernels beyond a run: the session's kernel (its
// staleness: it runs an older kernel bundle than the one on disk, docs/kernels.md; a
// `kernel.staleness_changed` event when an update makes it so), its
// background jobs (a `kernel.jobs_changed` event when one starts or ends, so streams and
// ETags follow) and whether its commands run in the sandbox.
import type { JobInfo } from '../../tools/types.ts'
import { DEFAULT_TOOL_SETTINGS, sandboxPolicyOf } from '../active-run.ts'
import type { RunsDeps } from '../deps.ts'

export function watchKernels(d: RunsDeps, stages: ReadonlyMap<string, string>): void {
  d.core.live.kernelOf = (sessionId) => {
    const k = d.kernels.info(sessionId)
    const stale = d.kernels.stale(sessionId)
    return {
      instance_id: k.instance_id,
      state: k.state,
      build: k.build,
      stage: stages.get(sessionId) ?? null,
      stale,
      staleness_reasons: stale ? ['build_changed'] : [],
    }
  }
  d.core.live.jobsOf = (sessionId) =>
    d.kernels.info(sessionId).running_jobs.map(({ id, command, started_at, output_bytes, run_id }) => ({
      id,
      command,
      started_at,
      output_bytes,
      run_id,
    }))
  d.core.live.sandboxOf = (sessionId) => {
    const status = d.kernels.sandbox
    const policy = sandboxPolicyOf(d.core.row(sessionId), d.tools?.() ?? DEFAULT_TOOL_SETTINGS)
    const reach = {
      network: policy.network,
      hidden_paths: [...(policy.hidden ?? [])],
      git_writable: policy.gitWritable === true,
    }
    if (!status) return { isolated: false, kind: null, reason: 'No kernel process has started yet', ...reach }
    return { isolated: status.available, kind: status.kind, reason: status.reason, ...reach }
  }
  d.kernels.onBundleChanged = (sessions) => {
    for (const sessionId of sessions)
      append(d, sessionId, 'kernel.staleness_changed', { stale: true, staleness_reasons: ['build_changed'] })
  }
  const liveJobs = new Map<string, string>()
  d.kernels.onJobs = (sessionId, jobs) => jobsChanged(d, liveJobs, sessionId, jobs)
}

/**
 * A job started or ended (output alone changes no event): `kernel.jobs_changed` goes to the
 * session's log. Jobs lost with a crashed kernel end here too. `liveJobs`: which jobs of each
 * session ran at the last report.
 */
function jobsChanged(d: RunsDeps, liveJobs: Map<string, string>, sessionId: string, jobs: JobInfo[]): void {
  const live = jobs.filter((j) => j.state === 'running').map((j) => j.id)
  const key = live.join(',')
  if ((liveJobs.get(sessionId) ?? '') === key) return
  if (key === '') liveJobs.delete(sessionId)
  else liveJobs.set(sessionId, key)
  append(d, sessionId, 'kernel.jobs_changed', { live_job_count: live.length, running: live })
}

function append(d: RunsDeps, sessionId: string, kind: string, payload: unknown): void {
  try {
    d.core.transact((tx) => {
      if (!d.core.row(sessionId)) return
      tx.append(sessionId, kind, payload)
    })
  } catch (err) {
    d.onError(err)
  }
}
