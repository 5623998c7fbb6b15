// `/upgrade` of the chat clients (line mode and the terminal client): POST
// /sessions/{id}/kernel/upgrade and what it did in a line or two (docs/kernels.md).
import type { KernelUpgradeResult } from '../schemas/kernel.ts'
import type { HearthClient } from './client.ts'

/** What an upgrade did; jobs it stopped are named, and said not to be restarted. */
export function upgradeText(r: KernelUpgradeResult): string {
  const lines: string[] = []
  if (r.outcome === 'upgraded') lines.push(`kernel upgraded: ${r.from_build} → ${r.to_build}`)
  else if (r.outcome === 'current') lines.push(`kernel already runs the build on disk (${r.to_build})`)
  else if (r.outcome === 'not_running')
    lines.push('no kernel runs: the next turn starts on the build on disk')
  else
    lines.push(
      `kernel not upgraded (${r.failed_stage}): ${r.problem?.detail ?? r.problem?.title}; the session keeps its kernel`,
    )
  if (r.stopped_jobs.length > 0)
    lines.push(
      `stopped jobs (not restarted): ${r.stopped_jobs.map((j) => `${j.command} [${j.id}]`).join(', ')}`,
    )
  return lines.join('\n')
}

export async function upgradeKernel(client: HearthClient, sessionId: string): Promise<string> {
  const { body } = await client.call('sessions.kernel_upgrade', {
    params: { session_id: sessionId },
    body: {},
  })
  return upgradeText(body as KernelUpgradeResult)
}
