// The names MCP tools are offered under: `mcp__<server>__<tool>`, so they never meet a
// built-in tool's name or another server's. Every provider hearth speaks accepts
// `^[A-Za-z_][A-Za-z0-9_-]{0,63}$` (OpenAI and Gemini allow 64 characters, Anthropic 128;
// Gemini wants a letter or `_` first), so other characters become `_` and a longer name is
// cut and ends with a hash of the whole, which keeps it unique and the same every time.
import { createHash } from 'node:crypto'

export const TOOL_NAME_MAX = 64
export const MCP_PREFIX = 'mcp__'

/** A name any provider accepts for the tool `tool` of server `server`. */
export function mcpToolName(server: string, tool: string): string {
  const raw = `${MCP_PREFIX}${server}__${tool}`
  const clean = raw.replace(/[^A-Za-z0-9_-]/g, '_')
  if (clean === raw && clean.length <= TOOL_NAME_MAX) return clean
  return withHash(clean, raw)
}

/** `name` cut to leave room for `_` and 8 hex digits of the hash of `whole`. */
export function withHash(name: string, whole: string): string {
  const hash = createHash('sha256').update(whole).digest('hex').slice(0, 8)
  return `${name.slice(0, TOOL_NAME_MAX - 9)}_${hash}`
}

export const isMcpToolName = (name: string): boolean => name.startsWith(MCP_PREFIX)
