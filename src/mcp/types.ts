// MCP servers as the daemon hands them to a kernel, and as a kernel reports them back.
// Shared by both sides of the IPC (plain values, no SDK here).
import type { ToolEffect } from '../tools/types.ts'

/**
 * One server a session may use, resolved from settings group `mcp` and its secrets in
 * creds.json `mcp.<name>`. It crosses the fork channel to the kernel (which must connect
 * with the secrets) and is never shown, logged or stored anywhere else.
 */
export type McpServerConfig = {
  name: string
  /** Start at most this long (connect, initialize, list tools). */
  startup_timeout_ms: number
  /** One tool call at most this long (progress notifications restart the clock). */
  tool_timeout_ms: number
  /** Only these tools (null: every tool the server lists). */
  enabled_tools: string[] | null
  disabled_tools: string[]
} & (
  | { transport: 'stdio'; command: string; args: string[]; cwd: string | null; env: Record<string, string> }
  | { transport: 'http'; url: string; headers: Record<string, string>; bearer_token: string | null }
)

/** Where a server is: starting, serving its tools, or left out of the session with a reason. */
export type McpServerState = 'starting' | 'ready' | 'failed' | 'exited'

/** One tool of a server as the model is offered it (`name` is the namespaced one). */
export interface McpOfferedTool {
  name: string
  /** The tool's own name on its server. */
  tool: string
  description: string
  parameters: Record<string, unknown>
  effect: ToolEffect
}

/** A server of a session as its kernel reports it (reasons never carry the server's secrets). */
export interface McpServerStatus {
  name: string
  transport: 'stdio' | 'http'
  state: McpServerState
  /** Why it failed or exited (null while it starts or serves). */
  reason: string | null
  /** When it reached this state (ISO 8601). */
  since: string
  tools: McpOfferedTool[]
}
