// `hearth login [PROVIDER]`, `hearth accounts` and `hearth logout ACCOUNT`: sign-in through
// a running daemon. The daemon runs the OAuth flow (listener, PKCE, exchange); this command
// opens the browser, shows progress, and passes on a response the person pastes.
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { v7 as uuidv7 } from 'uuid'
import { HearthClient, ProblemError } from '../client/client.ts'
import type { Login } from '../schemas/auth.ts'
import { homeOf, parseCommand } from './args.ts'
import { CommandError, type Out, UsageError } from './errors.ts'

const TERMINAL = new Set(['complete', 'failed', 'cancelled'])
const POLL_MS = 400

/** Opens `url` in the person's browser; quietly does nothing when that is not possible. */
function openBrowser(url: string): void {
  const command =
    process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open'
  try {
    const child = spawn(command, [url], { stdio: 'ignore', detached: true })
    child.on('error', () => {})
    child.unref()
  } catch {
    // no browser here: the URL is printed anyway
  }
}

export async function loginCommand(args: string[], out: Out, help: string): Promise<number> {
  const p = parseCommand(args, { manual: { type: 'boolean' } }, out, help, true)
  if (!p) return 0
  const [provider = 'chatgpt', extra] = p.positionals
  if (extra !== undefined) throw new UsageError(`unexpected argument ${extra}`)
  const client = HearthClient.fromHome(homeOf(p.values.home))
  // What the provider says of itself (its terms, for some) comes before the sign-in starts.
  const offered = (await client.call('auth.get')).body.providers.find((x) => x.extension === provider)
  if (offered) out.write(`${offered.label}: ${offered.detail}\n\n`)
  const id = uuidv7()
  const flow = p.values.manual ? 'manual' : 'browser'
  const created = await client.call('auth.login.put', {
    params: { login_id: id },
    body: { provider, flow, values: {} },
  })
  let login = created.body as Login
  let etag = created.headers.get('etag') ?? ''
  out.write(`${login.instructions}\n\n  ${login.url}\n\n`)
  if (login.state === 'waiting' && flow === 'browser' && !process.env.HEARTH_NO_BROWSER)
    openBrowser(login.url)
  if (login.state === 'waiting')
    out.write('Waiting… (or paste the address the browser ends on, then Enter)\n')
  const cancel = () => {
    void client.call('auth.login.delete', { params: { login_id: id } }).finally(() => process.exit(130))
  }
  process.once('SIGINT', cancel)
  const lines = process.stdin.isTTY || flow === 'manual' ? createInterface({ input: process.stdin }) : null
  lines?.on('line', (line) => {
    if (line.trim() === '') return
    client
      .call('auth.login.patch', {
        params: { login_id: id },
        body: { response: line.trim() },
        headers: { 'if-match': etag },
      })
      .catch((err) => {
        if (err instanceof ProblemError) out.write(`${err.problem.detail ?? err.problem.title}\n`)
      })
  })
  let shown = login.progress
  try {
    while (!TERMINAL.has(login.state)) {
      await sleep(POLL_MS)
      const r = await client.call('auth.login.get', { params: { login_id: id } })
      login = r.body as Login
      etag = r.headers.get('etag') ?? etag
      if (login.progress !== shown) {
        shown = login.progress
        out.write(`… ${shown}\n`)
      }
    }
  } finally {
    lines?.close()
    process.off('SIGINT', cancel)
  }
  if (login.state === 'complete') {
    const who = login.accounts.map((a) => a.label ?? a.id).join(', ')
    out.write(`Signed in to ${provider}${who ? ` as ${who}` : ''}.\n`)
    return 0
  }
  // A failure that tells the person what to do (a page to open) replaced the instructions.
  if (login.state === 'failed' && login.instructions !== (created.body as Login).instructions)
    out.write(`${login.instructions}\n`)
  throw new CommandError(`sign-in ${login.state}${login.failure ? ` (${login.failure})` : ''}`)
}

export async function accountsCommand(args: string[], out: Out, help: string): Promise<number> {
  const p = parseCommand(args, {}, out, help, true)
  if (!p) return 0
  if (p.positionals.length > 0) throw new UsageError(`unexpected argument ${p.positionals[0]}`)
  const { body } = await HearthClient.fromHome(homeOf(p.values.home)).call('auth.get')
  for (const provider of body.providers)
    out.write(`${provider.label} (${provider.extension}): ${provider.status}\n`)
  for (const a of body.accounts) {
    const marks = [
      a.plan,
      a.selected ? 'selected' : null,
      a.limited_until ? `limited until ${a.limited_until}` : null,
    ]
    out.write(`  ${a.id}  ${a.label ?? ''}  ${marks.filter(Boolean).join(', ')}\n`)
  }
  return 0
}

export async function logoutCommand(args: string[], out: Out, help: string): Promise<number> {
  const p = parseCommand(args, {}, out, help, true)
  if (!p) return 0
  const [account, extra] = p.positionals
  if (account === undefined || extra !== undefined) throw new UsageError('hearth logout ACCOUNT')
  await HearthClient.fromHome(homeOf(p.values.home)).call('auth.account.delete', {
    params: { account_id: account },
  })
  out.write(`removed account ${account}\n`)
  return 0
}
