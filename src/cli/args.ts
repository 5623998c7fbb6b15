// What every `hearth` command parses the same way: --home and --help, strict options.
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util'
import { resolveHome } from '../daemon/home.ts'
import { type Out, UsageError } from './errors.ts'

/** The home a command works on: --home, else $HEARTH_HOME, else ~/.hearth. */
export function homeOf(flag: string | undefined): string {
  if (flag === '') throw new UsageError('--home needs a directory')
  return resolveHome(flag)
}

const COMMON = { home: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const

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
  const parsed = parseArgs<Config>({
    args,
    options: { ...COMMON, ...options },
    allowPositionals: takesPositionals as true,
    strict: true,
  })
  if ((parsed.values as { help?: boolean }).help) {
    out.write(help)
    return undefined
  }
  return parsed
}
