// `hearth mcp login NAME` and `hearth mcp logout NAME`: a remote MCP server's sign-in. The
// login is the daemon's login resource for provider `mcp:NAME`, followed exactly as
// `hearth login` follows a provider's (the URL shown and opened, a pasted address as the
// fallback); the logout removes the account `mcp:NAME`, which revokes and deletes the tokens.
import { type HearthClient, ProblemError } from '../client/client.ts'
import { CommandError, type Out } from '../command-line/errors.ts'
import { loginCommand } from './auth.ts'

export function mcpLogin(
  name: string,
  values: Record<string, unknown>,
  out: Out,
  help: string,
): Promise<number> {
  const home = typeof values.home === 'string' ? ['--home', values.home] : []
  return loginCommand([`mcp:${name}`, ...(values.manual ? ['--manual'] : []), ...home], out, help)
}

export async function mcpLogout(client: HearthClient, name: string, out: Out): Promise<number> {
  try {
    await client.call('auth.account.delete', { params: { account_id: `mcp:${name}` } })
  } catch (err) {
    if (err instanceof ProblemError && err.problem.status === 404)
      throw new CommandError(`${name} is not signed in; see hearth mcp list`)
    throw err
  }
  out.write(`signed out of ${name} (its tokens revoked and deleted)\n`)
  return 0
}
