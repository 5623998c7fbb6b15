// The parts of a tool call's wording that need no file: its arguments read from the model's
// JSON text, an MCP call's server and tool, the lines two texts share at their ends (what a
// diff leaves out), and what answering "always" allows. No Node builtin: the terminal
// client, the CLI (approval-view.ts) and the web page word calls with the same functions.

export type Args = Record<string, unknown>

/** The arguments as an object, or undefined when the text is not a JSON object. */
export function parseArgs(text: string | undefined): Args | undefined {
  if (text === undefined) return undefined
  try {
    const v = JSON.parse(text) as unknown
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Args) : undefined
  } catch {
    return undefined
  }
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)

/** The server and tool of an MCP call's name `mcp__<server>__<tool>`, else undefined. */
export function mcpName(tool: string): { server: string; tool: string } | undefined {
  const m = /^mcp__(.+?)__(.+)$/.exec(tool)
  return m ? { server: m[1], tool: m[2] } : undefined
}

/** Two texts' lines, and how many lines they share at the start and at the end. */
export function sharedEnds(before: string, after: string) {
  const a = before.split('\n')
  const b = after.split('\n')
  let start = 0
  while (start < a.length && start < b.length && a[start] === b[start]) start++
  let end = 0
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end])
    end++
  return { a, b, start, end }
}

/** What answering "always" allows, in words (docs/tools.md, `remember: session`). */
export function alwaysCovers(r: { tool: string; arguments?: string }): string {
  const command = str(parseArgs(r.arguments)?.command)
  if (command !== undefined) return `this exact command line, with ${r.tool}, for this session`
  const mcp = mcpName(r.tool)
  return `every ${mcp ? `${mcp.server}: ${mcp.tool}` : r.tool} call in this session`
}
