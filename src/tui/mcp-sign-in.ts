// MCP servers that need a sign-in, in the terminal client: a server the session's kernel
// left out because it refused hearth with no usable token (`sign_in: required` in the
// composition) is said once in the transcript, with the command that signs in to it
// (/mcp-login NAME: the login screen, started at once for the provider `mcp:NAME`, shows
// the address to open; Esc cancels). Nothing restarts by itself: the next message starts
// the server with the new sign-in.
import type { SessionRead } from '../schemas/session-read.ts'

type Quarantined = SessionRead['composition']['quarantine'][number]

/** The slash command that signs in to a server. */
export const MCP_LOGIN = 'mcp-login'

/** The sign-in provider (extension) of a server, as GET /auth lists it. */
export const mcpProvider = (server: string) => `mcp:${server}`

/** The servers of the session that need a sign-in now. */
export function needingSignIn(session: SessionRead | undefined): string[] {
  return (session?.composition.quarantine ?? []).filter((q) => q.sign_in === 'required').map((q) => q.name)
}

/** What the transcript says of a server that needs a sign-in. */
export const signInNotice = (server: string) =>
  `MCP server ${server} needs a sign-in: /${MCP_LOGIN} ${server} signs in (or set its bearerToken); it starts with your next message`

/**
 * Says each server newly needing a sign-in once (a server is said again only after it was
 * started again and left out again: another `since`).
 */
export class SignInNotices {
  readonly #said = new Set<string>()

  /** The notices to show for this quarantine list. */
  next(quarantine: readonly Quarantined[]): string[] {
    const out: string[] = []
    for (const q of quarantine) {
      if (q.sign_in !== 'required') continue
      const key = `${q.name}\0${q.since}`
      if (this.#said.has(key)) continue
      this.#said.add(key)
      out.push(signInNotice(q.name))
    }
    return out
  }

  clear(): void {
    this.#said.clear()
  }
}

/** Which server `/mcp-login ARGS` means: the one named, else the only one that needs a sign-in. */
export function serverToSignIn(
  args: string,
  session: SessionRead | undefined,
): { server: string } | { problem: string } {
  if (args) return { server: args }
  const waiting = needingSignIn(session)
  if (waiting.length === 1) return { server: waiting[0] }
  return {
    problem:
      waiting.length === 0
        ? `usage: /${MCP_LOGIN} NAME (no server of this session needs a sign-in now)`
        : `usage: /${MCP_LOGIN} NAME (these need one: ${waiting.join(', ')})`,
  }
}
