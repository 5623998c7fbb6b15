// The editor's MCP servers (session/new, load and resume `mcpServers`) as the session's own
// servers in the daemon (PUT /sessions/{id}/mcp-servers, docs/mcp.md): loaded by that
// session's kernel beside the servers of settings, for that session only, never written to
// settings. stdio and streamable HTTP servers are taken; SSE, which hearth's MCP client does
// not speak, is left out with a line on stderr (initialize says `sse: false`).
import { type McpServer, RequestError } from '@agentclientprotocol/sdk'
import type { SessionMcpServer } from '../schemas/session-mcp.ts'
import { requestErrorOf } from './configuration.ts'
import type { AcpContext } from './context.ts'

/** A server name as hearth's names go (1–64 of A-Z a-z 0-9 . _ -, a letter or digit first). */
export function serverName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '')
  return (cleaned || 'editor').slice(0, 64)
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/

/** Name/value pairs as a map; a name the daemon would refuse is invalid params (checked first). */
function pairs(server: string, list: { name: string; value: string }[] | undefined, valid: RegExp) {
  for (const p of list ?? [])
    if (!valid.test(p.name))
      throw RequestError.invalidParams({ server, name: p.name }, `MCP server ${server}: bad name ${p.name}`)
  return Object.fromEntries((list ?? []).map((p) => [p.name, p.value]))
}

function httpUrl(server: string, url: string): string {
  if (/^https?:\/\//.test(url) && URL.canParse(url)) return url
  throw RequestError.invalidParams({ server, url }, `MCP server ${server}: the URL must be http or https`)
}

/**
 * The editor's servers as hearth takes them, and the names of those left out; what the daemon
 * would refuse (a bad URL or variable name) is invalid params, found before anything is made.
 */
export function sessionServersOf(servers: readonly McpServer[]): {
  servers: SessionMcpServer[]
  skipped: string[]
} {
  const out: SessionMcpServer[] = []
  const skipped: string[] = []
  const taken = new Set<string>()
  for (const s of servers) {
    let name = serverName(s.name)
    for (let n = 2; taken.has(name); n++) name = `${serverName(s.name).slice(0, 60)}-${n}`
    if ('type' in s && s.type === 'sse') {
      skipped.push(s.name)
      continue
    }
    taken.add(name)
    if ('type' in s && s.type === 'http')
      out.push({ name, url: httpUrl(s.name, s.url), headers: pairs(s.name, s.headers, HEADER_NAME) })
    else if ('command' in s)
      out.push({ name, command: s.command, args: s.args ?? [], env: pairs(s.name, s.env, ENV_NAME) })
  }
  return { servers: out, skipped }
}

/** The servers this process gave each session, per connection: to give them again after a restart. */
const given = new WeakMap<AcpContext, Map<string, SessionMcpServer[]>>()

function givenOf(ctx: AcpContext): Map<string, SessionMcpServer[]> {
  const lists = given.get(ctx) ?? new Map<string, SessionMcpServer[]>()
  given.set(ctx, lists)
  return lists
}

async function put(ctx: AcpContext, sessionId: string, servers: SessionMcpServer[]): Promise<void> {
  try {
    await ctx.client.call('sessions.mcp_servers_replace', {
      params: { session_id: sessionId },
      body: { servers },
    })
  } catch (err) {
    throw requestErrorOf(err)
  }
}

/**
 * Gives the daemon the editor's servers for this session. An empty list clears only what
 * this process gave earlier, so a second editor without servers leaves the first one's.
 * Nothing about them is logged but their names.
 */
export async function applyEditorServers(
  ctx: AcpContext,
  sessionId: string,
  mcpServers: readonly McpServer[] | undefined,
): Promise<void> {
  const { servers, skipped } = sessionServersOf(mcpServers ?? [])
  if (skipped.length > 0)
    ctx.log(
      `hearth acp: MCP servers left out (SSE is not supported; use streamable HTTP): ${skipped.join(', ')}`,
    )
  const mine = givenOf(ctx)
  if (servers.length === 0 && !mine.has(sessionId)) return
  if (servers.length > 0) mine.set(sessionId, servers)
  else mine.delete(sessionId)
  await put(ctx, sessionId, servers)
}

/**
 * Before a prompt: the daemon keeps the lists in memory only, so one that restarted since
 * has none; this process gives its list again. Costs one read when it gave servers, none else.
 */
export async function ensureEditorServers(ctx: AcpContext, sessionId: string): Promise<void> {
  const servers = givenOf(ctx).get(sessionId)
  if (!servers) return
  const { body } = await ctx.client.call('sessions.mcp_servers', { params: { session_id: sessionId } })
  const held = body.servers.map((x) => x.name).join('\0')
  if (held !== servers.map((x) => x.name).join('\0')) await put(ctx, sessionId, servers)
}
