// MCP roots, kernel side: the directories a session's servers may work in, as `roots/list`
// answers them (the session's workspace and allowed roots, which the daemon sends with each
// load), and `notifications/roots/list_changed` to every server when they change (the
// session's workspace moved, or the allowed roots did).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import type { McpRoot } from '../../mcp/types.ts'

/** What the client declares: it has roots and says when they change. */
export const ROOTS_CAPABILITY = { roots: { listChanged: true } } as const

/** Answers the server's `roots/list` with the session's roots as they are at that moment. */
export function serveRoots(client: Client, roots: () => readonly McpRoot[]): void {
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: roots().map((r) => ({ ...r })) }))
}

/** Tells a server its roots changed; a server gone meanwhile is reported by its close. */
export function tellRootsChanged(client: Client): void {
  client.sendRootsListChanged().catch(() => {})
}
