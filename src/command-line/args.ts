// What every `hearth` command parses the same way (the CLI's commands, the terminal client's
// `hearth chat`, `hearth daemon`): --home and --help, strict options, and one wording for
// every usage error (`unknown option --x`, `option --x needs a value`, `unexpected argument y`).
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util'
import { resolveHome } from '../home.ts'
import { type Out, UsageError } from './errors.ts'

/** --home given before the command (`hearth --home DIR sessions`); a command's own wins. */
let globalHome: string | undefined

/** The home a command works on: --home, else a global --home, else $HEARTH_HOME, else ~/.hearth. */
export function homeOf(flag: string | undefined): string {
  const home = flag ?? globalHome
  if (home === '') throw new UsageError('--home needs a directory')
  return resolveHome(home)
}

/**
 * Splits `hearth [--home DIR | --home=DIR]... COMMAND ARGS...` into the global home, the
 * command and its arguments, and remembers the home for homeOf. Anything else before the
 * command (--help, --version, an unknown option) is left as the command.
 */
export function takeGlobalOptions(argv: readonly string[]): { command: string | undefined; rest: string[] } {
  let i = 0
  for (; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--home') {
      if (i + 1 >= argv.length) throw new UsageError('option --home needs a value')
      globalHome = argv[++i]
    } else if (arg.startsWith('--home=')) globalHome = arg.slice('--home='.length)
    else break
  }
  return { command: argv[i], rest: argv.slice(i + 1) }
}

const COMMON = { home: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const

/** The option or argument a node:util parseArgs error names (its message quotes it). */
function quoted(message: string): string {
  return /'([^']*)'/.exec(message)?.[1] ?? message
}

/** node:util parseArgs errors in hearth's one wording; other errors unchanged. */
export function usageErrorOf(err: unknown): unknown {
  const code = (err as { code?: string })?.code
  const message = (err as Error)?.message ?? ''
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return new UsageError(`unknown option ${quoted(message)}`)
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
    return new UsageError(`unexpected argument ${quoted(message)}`)
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    // "Option '-h, --help' does not take an argument" / "Option '--home <value>' argument missing"
    const option =
      quoted(message)
        .split(/[ ,]+/)
        .find((w) => w.startsWith('--')) ?? quoted(message)
    return new UsageError(
      /does not take/.test(message) ? `option ${option} takes no value` : `option ${option} needs a value`,
    )
  }
  return err
}

/**
 * Parses a command's arguments with --home and --help added to `options`. Prints `help`
 * and returns undefined when --help was given. Positional arguments are refused unless
 * the command takes them.
 */
export function parseCommand<O extends ParseArgsOptionsConfig>(
  args: string[],
  options: O,
  out: Out,
  help: string,
  takesPositionals = false,
) {
  type Config = { args: string[]; options: typeof COMMON & O; allowPositionals: true; strict: true }
  // `allowPositionals` is typed as true so `positionals` is string[]; it stays empty when
  // the command takes none (strict parsing throws on one).
  let parsed: ReturnType<typeof parseArgs<Config>>
  try {
    parsed = parseArgs<Config>({
      args,
      options: { ...COMMON, ...options },
      allowPositionals: takesPositionals as true,
      strict: true,
    })
  } catch (err) {
    throw usageErrorOf(err)
  }
  if ((parsed.values as { help?: boolean }).help) {
    out.write(help)
    return undefined
  }
  return parsed
}

/** The usage error for a word where a subcommand was expected. */
export function unknownSubcommand(group: string, word: string, choices: string): UsageError {
  return new UsageError(
    word.startsWith('-') ? `unknown option ${word}` : `unknown ${group} command ${word} (${choices})`,
  )
}
