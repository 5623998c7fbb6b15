// What a session's composition shows of its MCP servers: `availability` has every server the
// session's kernel was asked to load, with its state; `quarantine` lists those left out of
// the session (failed to start, exited), each with its reason and whether it needs a sign-in
// (a client offers it). Built from the kernel's
// reports (`mcp_state`), kept per session while the session has its kernel.
import type { McpServerStatus } from './types.ts'

export interface McpAvailability {
  kind: 'mcp'
  name: string
  transport: 'stdio' | 'http'
  state: McpServerStatus['state']
  reason: string | null
  since: string
  /** The names its tools are offered under. */
  tools: string[]
  /** `required`: it refused hearth and needs a sign-in (`hearth mcp login NAME`). */
  sign_in: 'required' | null
}

export interface McpQuarantined {
  kind: 'mcp'
  name: string
  state: 'failed' | 'exited'
  reason: string
  since: string
  sign_in: 'required' | null
}

export interface CompositionView {
  quarantine: McpQuarantined[]
  availability: Record<string, McpAvailability>
}

/** The key of a server in `availability` (other kinds of entries get their own prefix). */
export const availabilityKey = (server: string) => `mcp:${server}`

export function compositionOf(servers: readonly McpServerStatus[] | null | undefined): CompositionView {
  const list = servers ?? []
  return {
    quarantine: list
      .filter((s) => s.state === 'failed' || s.state === 'exited')
      .map((s) => ({
        kind: 'mcp',
        name: s.name,
        state: s.state as 'failed' | 'exited',
        reason: s.reason ?? s.state,
        since: s.since,
        sign_in: s.sign_in ?? null,
      })),
    availability: Object.fromEntries(
      list.map((s) => [
        availabilityKey(s.name),
        {
          kind: 'mcp',
          name: s.name,
          transport: s.transport,
          state: s.state,
          reason: s.reason,
          since: s.since,
          tools: s.tools.map((t) => t.name),
          sign_in: s.sign_in ?? null,
        },
      ]),
    ),
  }
}

/** Two reports that a client would see the same (a state or reason changed, or the tools). */
export function sameComposition(a: CompositionView, b: CompositionView): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}
