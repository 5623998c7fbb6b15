// `hearth login [PROVIDER]`, `hearth accounts` and `hearth logout ACCOUNT`: sign-in through
// a running daemon. The daemon runs the OAuth flow (listener, PKCE, exchange, or a device
// code's polling); this command opens the browser, shows the URL (and a device code),
// progress, and passes on a response the person pastes.
import { createInterface } from 'node:readline'
import { HearthClient, ProblemError } from '../client/client.ts'
import { defaultFlow, LoginFlow, openBrowser, signedInAs } from '../client/login.ts'
import { homeOf, parseCommand } from '../command-line/args.ts'
import { CommandError, type Out, UsageError } from '../command-line/errors.ts'
import { DEFAULT_SIGN_IN } from '../schemas/extensions.ts'

export async function loginCommand(args: string[], out: Out, help: string): Promise<number> {
  const p = parseCommand(args, { manual: { type: 'boolean' }, gh: { type: 'boolean' } }, out, help, true)
  if (!p) return 0
  const [provider = DEFAULT_SIGN_IN, extra] = p.positionals
  if (extra !== undefined) throw new UsageError(`unexpected argument ${extra}`)
  const client = HearthClient.fromHome(homeOf(p.values.home))
  // The chooser's detail first: for claude and copilot it says what the provider's terms allow.
  const offered = (await client.call('auth.get')).body.providers.find((x) => x.extension === provider)
  if (offered) out.write(`${offered.label}: ${offered.detail}\n\n`)
  const flow = p.values.gh ? 'cli' : p.values.manual ? 'manual' : defaultFlow(offered)
  const sign = await LoginFlow.start(client, provider, flow)
  const firstInstructions = sign.login.instructions
  if (flow !== 'cli') out.write(`${sign.login.instructions}\n\n  ${sign.login.url}\n\n`)
  if (sign.login.state === 'waiting' && flow !== 'manual') openBrowser(sign.login.url)
  if (sign.login.state === 'waiting')
    out.write(
      flow === 'device'
        ? `Waiting for ${offered?.label ?? provider}… (Esc or Ctrl-C cancels)\n`
        : 'Waiting… (or paste the address the browser ends on, then Enter)\n',
    )
  const cancel = () => {
    void sign.cancel().finally(() => process.exit(130))
  }
  process.once('SIGINT', cancel)
  const lines =
    flow !== 'device' && (process.stdin.isTTY || flow === 'manual')
      ? createInterface({ input: process.stdin })
      : null
  lines?.on('line', (line) => {
    if (line.trim() === '') return
    sign.answer(line.trim()).catch((err) => {
      if (err instanceof ProblemError) out.write(`${err.problem.detail ?? err.problem.title}\n`)
    })
  })
  // A device login takes no input: Esc (or Ctrl-C, a key in raw mode) cancels it.
  const keys = flow === 'device' && !sign.done ? cancelKeys(cancel) : null
  let login = sign.login
  let shown = login.progress
  try {
    login = await sign.follow((l) => {
      if (l.progress !== shown) out.write(`… ${l.progress}\n`)
      shown = l.progress
    })
  } finally {
    lines?.close()
    keys?.()
    process.off('SIGINT', cancel)
  }
  if (login.state === 'complete') {
    const who = signedInAs(login)
    out.write(`Signed in to ${provider}${who ? ` as ${who}` : ''}.\n`)
    return 0
  }
  // A failure that tells the person what to do (a page to open, a program to install)
  // replaced the instructions; a cli login's PUT answers with its end, so it shows them.
  if (login.state === 'failed' && (flow === 'cli' || login.instructions !== firstInstructions))
    out.write(`${login.instructions}\n`)
  throw new CommandError(`sign-in ${login.state}${login.failure ? ` (${login.failure})` : ''}`)
}

/** Raw keys on a terminal: Esc or Ctrl-C calls `cancel`. Returns the undo. */
function cancelKeys(cancel: () => void): (() => void) | null {
  const input = process.stdin
  if (!input.isTTY) return null
  const onData = (data: Buffer) => {
    if (data[0] === 0x1b || data[0] === 0x03) cancel()
  }
  input.setRawMode(true)
  input.on('data', onData)
  input.resume()
  return () => {
    input.off('data', onData)
    input.setRawMode(false)
    input.pause()
  }
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
