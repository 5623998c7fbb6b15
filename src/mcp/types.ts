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
  | {
      transport: 'http'
      url: string
      headers: Record<string, string>
      bearer_token: string | null
      /**
       * The server's sign-in generation (when its tokens were obtained), or null when it has
       * no sign-in. The kernel asks the daemon for the access token itself (`mcp_token`), so
       * a refresh changes nothing here while a new sign-in restarts the connection.
       */
      oauth: string | null
    }
)

/** An access token of a signed-in server, as the daemon hands it to the kernel that asked. */
export interface McpAccessToken {
  access_token: string
  /** When it expires (ms since the epoch), when the server said. */
  expires_at: number | null
}

/** A directory the session's servers may work in, as MCP roots list it. */
export interface McpRoot {
  /** A `file://` URI. */
  uri: string
  name: string
}

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
  /** `required`: it refused hearth (HTTP 401) and no usable token exists: it needs a sign-in. */
  sign_in: 'required' | null
}
