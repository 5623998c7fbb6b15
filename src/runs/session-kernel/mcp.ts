// MCP servers in runs, daemon side. Before a run's first step the session's kernel is asked
// to bring the session's servers to what the settings say now (`mcp_load`); the servers'
// tools are offered beside the built-in ones at every step, so a server that exits during a
// run drops out of the next step. The kernel's reports are the per-session record of what
// is loaded: session reads show it as `composition.quarantine` / `availability`, and a
// change is a `composition.changed` event (streams and ETags follow) and, for a server that
// failed or exited, a warning in the log. Secrets go to the kernel only; a signed-in server's
// access token is given to the kernel when it asks (`mcp_token`), never in a load. The
// session's roots (its workspace and allowed roots) go with each load, and again when its
// workspace moves, so its servers are told.
import type { ToolSource } from '../../context/tools.ts'
import type { Kernel, KernelPool } from '../../kernel/pool.ts'
import { type CompositionView, compositionOf, sameComposition } from '../../mcp/composition.ts'
import { mcpRootsOf } from '../../mcp/config.ts'
import type { McpServerStatus } from '../../mcp/types.ts'
import type { RunsDeps } from '../deps.ts'

export function watchMcp(d: RunsDeps): void {
  const shown = new Map<string, CompositionView>()
  d.kernels.onMcpToken = (_sessionId, server, rejected) =>
    d.mcpAccess ? d.mcpAccess.token(server, rejected) : Promise.resolve(null)
  d.core.hub.subscribeCollection((c) => {
    if (!c.before || !c.after || c.before.workspace === c.after.workspace) return
    d.kernels.current(c.session_id)?.rootsChanged(rootsOf(d, c.after.workspace))
  })
  d.core.live.compositionOf = (sessionId) => shown.get(sessionId) ?? compositionOf(null)
  d.kernels.onMcp = (sessionId, servers) => {
    const before = shown.get(sessionId) ?? compositionOf(null)
    const after = compositionOf(servers)
    // The kernel going away (idle release, crash) empties the record without an event, as
    // `kernel.state` turns `none`; what it loaded is gone with it.
    if (servers === null) {
      shown.delete(sessionId)
      return
    }
    shown.set(sessionId, after)
    if (sameComposition(before, after)) return
    logLeftOut(d, sessionId, before, servers)
    try {
      d.core.transact((tx) => {
        if (!d.core.row(sessionId)) return
        tx.append(sessionId, 'composition.changed', after)
      })
    } catch (err) {
      d.onError(err)
    }
  }
}

/** A warning for each server newly left out (its reason is scrubbed of its secrets). */
function logLeftOut(
  d: RunsDeps,
  sessionId: string,
  before: CompositionView,
  servers: McpServerStatus[],
): void {
  const known = new Set(before.quarantine.map((q) => `${q.name}\0${q.since}`))
  for (const s of servers) {
    if (s.state !== 'failed' && s.state !== 'exited') continue
    if (known.has(`${s.name}\0${s.since}`)) continue
    const message = s.state === 'failed' ? 'mcp server failed to start' : 'mcp server exited'
    d.onNotice?.({ session_id: sessionId, server: s.name, reason: s.reason }, message)
  }
}

/**
 * Brings the session's MCP servers to the settings' (with its `selection.mcp` entries over
 * their `enabled`), and its own servers, before the run's first step.
 */
export function loadMcp(
  d: RunsDeps,
  kernel: Kernel,
  workspace: string,
  selection: Record<string, boolean>,
  retry = false,
): Promise<void> {
  const servers = d.mcp?.(workspace, selection, kernel.sessionId) ?? []
  return kernel.loadMcp(servers, rootsOf(d, workspace), retry)
}

/** The session's roots: its workspace and the allowed roots as the settings are now. */
const rootsOf = (d: RunsDeps, workspace: string) => mcpRootsOf(workspace, d.tools?.().allowed_roots ?? [])

/**
 * The ready MCP servers' tools of a session's kernel, as a source of the session's tools
 * (src/context/tools.ts): offered beside the built-in ones at every step and listed by the
 * context summary. A session without a kernel has no servers running.
 */
export function mcpToolSource(kernels: KernelPool): ToolSource {
  return {
    name: 'mcp',
    tools: (sessionId) =>
      (kernels.current(sessionId)?.mcp ?? [])
        .filter((s) => s.state === 'ready')
        .flatMap((s) =>
          s.tools.map(({ name, description, parameters, effect }) => ({
            name,
            description,
            parameters,
            effect,
          })),
        ),
  }
}
