// The usage core: hearth's own stand-in for CodexBar's CLI, run by the daemon's quota poller
// as its own process (`process.execPath dist/usage-core.mjs usage --provider <id> --format
// json`). It reads one feed's credential from its environment, calls the vendor's usage
// endpoint and prints one report (src/quota/report.ts) with CodexBar's exit codes. A failure
// of the feed is a report with `error` and `usage: null`, never a stack trace; no credential
// of the environment is ever printed. docs/quota.md, "The usage core".

import {
  type CallLimits,
  type Env,
  FAILURE,
  type FeedAnswer,
  UsageFailure,
  type UsageFeed,
} from '../providers/shared/usage-fetch.ts'
import type { ReportError, UsageReport } from '../quota/report.ts'
import { parseArgs, USAGE_TEXT } from './args.ts'
import { FEEDS } from './feeds.ts'

/** One vendor call's limit, and the whole run's (antigravity and minimax make up to four calls). */
export const CALL_TIMEOUT_MS = 15_000
export const RUN_TIMEOUT_MS = 40_000
/** Test hook: a shorter limit for one call. */
const CALL_TIMEOUT_ENV = 'HEARTH_USAGE_CORE_CALL_TIMEOUT_MS'

function errorReport(provider: string, source: string, error: ReportError): UsageReport {
  return { provider, account: null, version: null, source, status: null, usage: null, error }
}

/** CodexBar's report of a bad command line: provider `cli`, kind `args`, exit code 1. */
const argsError = (message: string) => ({
  report: errorReport('cli', 'cli', { code: FAILURE.failed, message, kind: 'args' }),
  code: FAILURE.failed,
})

function limitsOf(env: Env): CallLimits {
  const asked = Number(env[CALL_TIMEOUT_ENV])
  const callMs = Number.isFinite(asked) && asked > 0 ? Math.min(asked, CALL_TIMEOUT_MS) : CALL_TIMEOUT_MS
  return { callMs, deadline: Date.now() + RUN_TIMEOUT_MS }
}

/** One feed's report and the exit code that goes with it. */
async function reportOf(feed: UsageFeed, env: Env): Promise<{ report: UsageReport; code: number }> {
  try {
    const got = await feed.fetch(env, limitsOf(env))
    const { usage, account } = 'usage' in got ? (got as FeedAnswer) : { usage: got, account: null }
    const report = {
      provider: feed.id,
      account,
      version: null,
      source: feed.source,
      status: null,
      usage,
      error: null,
    }
    return { report, code: 0 }
  } catch (err) {
    const failure =
      err instanceof UsageFailure ? err : new UsageFailure(`Unexpected error: ${(err as Error)?.message}`)
    const error = { code: failure.code, message: failure.message, kind: 'provider' }
    return { report: errorReport(feed.id, feed.source, error), code: failure.code }
  }
}

/** The text with every credential of the environment replaced. */
function scrub(text: string, env: Env): string {
  let out = text
  for (const feed of FEEDS.values())
    for (const secret of feed.secrets(env)) if (secret.length >= 4) out = out.split(secret).join('[redacted]')
  return out
}

async function main(argv: readonly string[], env: Env): Promise<number> {
  const parsed = parseArgs(argv)
  if (parsed.kind === 'help' || parsed.kind === 'version') {
    const text =
      parsed.kind === 'help' ? `${USAGE_TEXT}\nfeeds: ${[...FEEDS.keys()].join(', ')}` : 'hearth-usage-core'
    process.stdout.write(`${text}\n`)
    return 0
  }
  let result: { report: UsageReport; code: number }
  if (parsed.kind === 'error') result = argsError(parsed.message)
  else {
    const feed = FEEDS.get(parsed.provider)
    result = feed
      ? await reportOf(feed, env)
      : argsError(
          `Error: unknown provider '${parsed.provider}' (this core serves ${[...FEEDS.keys()].join(', ')}).`,
        )
  }
  const pretty = parsed.kind === 'usage' && parsed.pretty
  await new Promise<void>((resolve) =>
    process.stdout.write(`${scrub(JSON.stringify(result.report, null, pretty ? 2 : undefined), env)}\n`, () =>
      resolve(),
    ),
  )
  return result.code
}

// A call still in flight (the plan lookup beside a failed quota call) must not hold the exit.
main(process.argv.slice(2), process.env).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`usage core: unexpected failure: ${(err as Error)?.message}\n`)
    process.exit(FAILURE.failed)
  },
)
