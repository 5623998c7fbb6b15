// `hearth web [SESSION]`: opens the web client the daemon serves under /web/, signed in. The
// token goes in the address's fragment (`#token=…`), which a browser never sends: the daemon
// never receives it in a request line, and the page removes it from the address at once
// (docs/web.md). With HEARTH_NO_BROWSER the address is printed instead.
import { HearthClient } from '../client/client.ts'
import { browserAllowed, openBrowser } from '../client/login.ts'
import { homeOf, parseCommand } from '../command-line/args.ts'
import { type Out, UsageError } from '../command-line/errors.ts'
import { checkSessionArg, resolveSessionId } from '../command-line/session-id.ts'

/** The page's address with the token (and the route to open) in its fragment. */
export function webAddress(daemonUrl: string, token: string, sessionId?: string): string {
  const fragment = new URLSearchParams({ token })
  if (sessionId) fragment.set('route', `/s/${sessionId}`)
  return `${new URL('/web/', daemonUrl).href}#${fragment}`
}

export async function webCommand(args: string[], out: Out, help: string): Promise<number> {
  const parsed = parseCommand(args, {}, out, help, true)
  if (!parsed) return 0
  const { values, positionals } = parsed
  if (positionals.length > 1) throw new UsageError(`unexpected argument ${positionals[1]}`)
  if (positionals[0] !== undefined) checkSessionArg(positionals[0])
  const client = HearthClient.fromHome(homeOf(values.home))
  // Asked first, so a daemon that does not answer is said here, not by the browser.
  await client.call('server.get')
  const sessionId = positionals[0] === undefined ? undefined : await resolveSessionId(client, positionals[0])
  const address = webAddress(client.endpoint.url, client.endpoint.token, sessionId)
  if (!browserAllowed()) {
    out.write(`${address}\n`)
    return 0
  }
  openBrowser(address)
  out.write(
    `opened the web client at ${new URL('/web/', client.endpoint.url).href} (the token is in the address your browser got)\n`,
  )
  return 0
}
