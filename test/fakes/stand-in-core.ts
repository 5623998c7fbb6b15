// The stand-in usage core (stand-in-core.mjs) for one test: its folder, the executable
// wrapper HEARTH_USAGE_CORE names (it sets STAND_IN_CORE_DIR and runs the stand-in, so
// the core needs nothing of the daemon's environment), its script and the calls it saw.
// `usageReport` builds a report shaped as CodexBar's CLI prints it (ProviderPayload).
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { until } from '../helpers/daemon.ts'

export const STAND_IN = join(import.meta.dirname, 'stand-in-core.mjs')

export interface CoreStep {
  stdout?: unknown
  stderr?: string
  exit?: number
  crash?: NodeJS.Signals
  block?: boolean
  child?: boolean
}

export interface CoreCall {
  feed: string
  index: number
  argv: string[]
  env: Record<string, string>
  cwd: string
  pid: number
  childPid: number | null
  files: { codexHome?: string; authJson?: string; authMode?: number; homeMode?: number }
}

export class StandInCore {
  readonly dir: string
  /** The executable to name in HEARTH_USAGE_CORE. */
  readonly path: string
  #script: Record<string, CoreStep[]> = {}

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'stand-in-core-'))
    this.path = join(this.dir, 'core')
    writeFileSync(this.path, `#!/bin/sh\nSTAND_IN_CORE_DIR='${this.dir}' exec '${STAND_IN}' "$@"\n`)
    chmodSync(this.path, 0o755)
  }

  /** What the calls of one feed answer, in order (the last step repeats). */
  script(feed: string, steps: CoreStep[]): void {
    this.#script[feed] = steps
    writeFileSync(join(this.dir, 'script.json'), JSON.stringify(this.#script))
  }

  calls(feed?: string): CoreCall[] {
    const file = join(this.dir, 'calls.jsonl')
    if (!existsSync(file)) return []
    const all = readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as CoreCall)
    return feed === undefined ? all : all.filter((c) => c.feed === feed)
  }

  /** Waits until `n` calls (of the feed) have started. */
  waitCalls(n: number, feed?: string, ms = 30_000): Promise<CoreCall[]> {
    return until(
      `${n} calls of the core`,
      () => (this.calls(feed).length >= n ? this.calls(feed) : undefined),
      ms,
      10,
    )
  }

  /** Lets a blocked call (`block: true`) answer. */
  release(feed: string, index: number): void {
    writeFileSync(join(this.dir, `release-${feed}-${index}`), '')
  }

  close(): void {
    rmSync(this.dir, { recursive: true, force: true })
  }
}

export interface ReportLimits {
  /** [usedPercent, windowMinutes, resetsAt ms] */
  primary?: [number, number, number]
  secondary?: [number, number, number]
  extra?: { id: string; title: string; used: number; resetMs: number }[]
  plan?: string
  email?: string
}

const window = ([used, minutes, reset]: [number, number, number]) => ({
  usedPercent: used,
  windowMinutes: minutes,
  resetsAt: new Date(reset).toISOString(),
  resetDescription: null,
})

/** A report as CodexBar's CLI prints it for one provider (`--format json`). */
export function usageReport(feed: string, l: ReportLimits = {}): Record<string, unknown> {
  return {
    provider: feed,
    account: l.email ?? null,
    version: null,
    source: 'oauth',
    status: null,
    usage: {
      primary: l.primary ? window(l.primary) : null,
      secondary: l.secondary ? window(l.secondary) : null,
      tertiary: null,
      extraRateWindows: l.extra?.map((e) => ({
        id: e.id,
        title: e.title,
        window: window([e.used, 10080, e.resetMs]),
        usageKnown: true,
      })),
      updatedAt: new Date().toISOString(),
      identity: {
        providerID: feed,
        accountEmail: l.email ?? null,
        accountOrganization: null,
        loginMethod: l.plan ?? null,
      },
    },
    credits: null,
    antigravityPlanInfo: null,
    openaiDashboard: null,
  }
}

/** A provider failure as CodexBar's CLI prints it: `usage` null beside the error. */
export function errorReport(feed: string, message: string, code = 1): Record<string, unknown> {
  return {
    provider: feed,
    account: null,
    version: null,
    source: 'oauth',
    status: null,
    usage: null,
    credits: null,
    error: { code, message, kind: 'provider' },
  }
}
