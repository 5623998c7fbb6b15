// Handler of POST /sessions/{id}/kernel/upgrade. Domain code is in
// src/runs/session-kernel/upgrade.ts and src/kernel/upgrade.ts.
import { bindGroup } from '../http/route.ts'
import type { Runs } from '../runs/engine.ts'
import { upgradeSessionKernel } from '../runs/session-kernel/upgrade.ts'
import { kernelOps } from '../schemas/kernel.ts'
import { lower } from '../util/uuid.ts'

export function kernelRoutes(d: { runs: Runs }) {
  return bindGroup(kernelOps)({
    'sessions.kernel_upgrade': async ({ params }) => ({
      status: 200,
      body: await upgradeSessionKernel(d.runs, lower(params.session_id)),
    }),
  })
}
