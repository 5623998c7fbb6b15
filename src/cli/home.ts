import { resolveHome } from '../daemon/home.ts'
import { UsageError } from './errors.ts'

/** The home a command works on: --home, else $HEARTH_HOME, else ~/.hearth. */
export function homeOf(flag: string | undefined): string {
  if (flag === '') throw new UsageError('--home needs a directory')
  return resolveHome(flag)
}
