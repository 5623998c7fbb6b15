// The usage core's command line, CodexBar's: `usage --provider <id> --format json`
// (`usage` may be left out, as CodexBar's default command). Only JSON is printed; the flags
// CodexBar's callers pass that change nothing here (`--pretty`, `--json`, `--json-only`,
// `--source`) are accepted. Anything else is an argument error.

export type Parsed =
  | { kind: 'usage'; provider: string; pretty: boolean }
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'error'; message: string }

const SOURCES = ['auto', 'web', 'cli', 'oauth', 'api']
const FLAGS = new Set(['--pretty', '--json', '--json-only'])

export const USAGE_TEXT =
  'usage: usage-core usage --provider <id> --format json [--pretty] [--source auto|oauth|api]'

export function parseArgs(argv: readonly string[]): Parsed {
  if (argv.includes('-h') || argv.includes('--help')) return { kind: 'help' }
  if (argv.includes('-V') || argv.includes('--version')) return { kind: 'version' }
  const rest = argv[0] === 'usage' ? argv.slice(1) : [...argv]
  const options = new Map<string, string>()
  let pretty = false
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]
    if (FLAGS.has(arg)) {
      pretty ||= arg === '--pretty'
      continue
    }
    const m = /^--(provider|format|source)(?:=(.*))?$/.exec(arg)
    if (!m) return { kind: 'error', message: `Error: unknown argument '${arg}'. ${USAGE_TEXT}` }
    const value = m[2] ?? rest[++i]
    if (value === undefined || value === '')
      return { kind: 'error', message: `Error: --${m[1]} needs a value.` }
    options.set(m[1], value)
  }
  const format = options.get('format') ?? 'json'
  if (format !== 'json') return { kind: 'error', message: `Error: --format must be json (got '${format}').` }
  const source = options.get('source')
  if (source !== undefined && !SOURCES.includes(source))
    return { kind: 'error', message: 'Error: --source must be auto|web|cli|oauth|api.' }
  const provider = options.get('provider')
  if (!provider) return { kind: 'error', message: `Error: --provider is required. ${USAGE_TEXT}` }
  return { kind: 'usage', provider, pretty }
}
