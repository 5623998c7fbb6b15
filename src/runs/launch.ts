// The start of a run, before its first step: the session's profile is resolved (a missing
// or unsupported one fails the run at once), the session's kernel is taken and listened to,
// and then the kernel's start, the run's credential, the model's window and the session's
// MCP servers are awaited together, so the first step waits for the slowest of them only. The
// environment block (its git state read from the workspace's repository) is read meanwhile.
// A run that an input starts begins right after the input's commit, before its sync
// (inputs/group-commit.ts), so those waits overlap the sync.

import { type EnvironmentFacts, environmentBlock, environmentFacts } from '../instructions/environment.ts'
import type { Kernel } from '../kernel/pool.ts'
import { hasTransport } from '../providers/registry.ts'
import { HearthError, type Problem, problemBody } from '../schemas/problems.ts'
import type { LiveRun } from '../sessions/live.ts'
import { selectionOf } from '../sessions/views.ts'
import { REQUIRES } from '../settings/groups/extensions.ts'
import type { ResolvedProfile } from '../settings/profiles.ts'
import { ActiveRun, DEFAULT_TOOL_SETTINGS, type RunToolScope, scopeOf } from './active-run.ts'
import type { RunMoves, RunsDeps } from './deps.ts'
import { loadMcp } from './session-kernel/mcp.ts'
import type { StartedRun } from './start.ts'
import { onKernelMessage } from './step.ts'

/** The run's state as the session shows it live (GET /sessions/{id}, streams) from its start. */
export function newActiveRun(started: StartedRun): ActiveRun {
  const live: LiveRun = {
    run_id: started.run_id,
    started_at: new Date().toISOString(),
    contents: [],
    tools: [],
    observed_ms: Date.now(),
    kernel: { instance_id: null, state: 'starting', build: null },
  }
  return new ActiveRun(started, live)
}

/**
 * The environment block a run of the session would start with now, for the reads that
 * describe the next request (the context summary, a compaction's estimate); null when the
 * settings leave it out.
 */
export async function nextEnvironment(d: RunsDeps, sessionId: string): Promise<string | null> {
  if (!d.core.instructions.settings().environment) return null
  const scope = scopeOf(d.core, sessionId, d.tools?.() ?? DEFAULT_TOOL_SETTINGS)
  return environmentBlock(await environmentFacts(scope, d.kernels.sandbox))
}

/** The environment facts of `scope` now; not read at all when the settings leave the block out. */
function factsOf(d: RunsDeps, scope: RunToolScope): Promise<EnvironmentFacts> | null {
  return d.core.instructions.settings().environment ? environmentFacts(scope, null) : null
}

/** Prepares the run's first step and sends it once all it needs has come (or ends the run). */
export function launchRun(m: RunMoves, sessionId: string, run: ActiveRun): void {
  const profile = resolveProfile(m.d, sessionId, run.started)
  if ('problem' in profile) {
    m.finish(sessionId, run, 'failed', profile.problem)
    return
  }
  const kernel = attachKernel(m, sessionId, run)
  settleRun(m.d, sessionId, run, profile.ok)
  const facts = factsOf(m.d, run.scope)
  awaitFirstStep(m, sessionId, run, { profile: profile.ok, kernel, facts })
}

/** A first run: no profile saved, none signed in, no demo. The ways forward, for every client. */
const NO_PROFILE_YET =
  'No provider profile is set up yet: add one with hearth profile add, sign in to a subscription with /login (hearth login), or start the daemon with --demo to try hearth without an account'

/** The session's profile as configured now, if hearth can talk to its provider. */
function resolveProfile(
  d: RunsDeps,
  sessionId: string,
  started: StartedRun,
): { ok: ResolvedProfile } | { problem: Problem } {
  const profile = d.profiles.resolve(started.provider_profile)
  if (!profile) {
    const detail = started.provider_profile
      ? `Profile "${started.provider_profile}" is not configured (config.json providers.profiles)`
      : NO_PROFILE_YET
    return { problem: problemBody('provider_not_configured', detail) }
  }
  if (!hasTransport(profile.extension)) {
    // A profile written by hand for a provider hearth cannot talk to yet.
    const detail = `Profile "${profile.name}" uses ${profile.extension}, which hearth cannot talk to yet`
    return { problem: problemBody('provider_unsupported', detail) }
  }
  const row = d.core.row(sessionId)
  const off = row ? extensionsOff(profile.extension, selectionOf(row).extensions) : null
  if (off) {
    const detail = `This session's selection turns off ${off}, which profile "${profile.name}" needs; remove selection.extensions.${off} or choose another profile`
    return { problem: problemBody('extension_not_selected', detail) }
  }
  return { ok: profile }
}

/** The first of `extension` and what it requires (transitively) that `selection` turns off. */
function extensionsOff(extension: string, selection: Record<string, boolean>): string | null {
  const seen = new Set<string>()
  const walk = (name: string): string | null => {
    if (seen.has(name)) return null
    seen.add(name)
    if (selection[name] === false) return name
    for (const r of REQUIRES[name as keyof typeof REQUIRES] ?? []) {
      const found = walk(r)
      if (found) return found
    }
    return null
  }
  return walk(extension)
}

/** Takes the session's kernel for the run: its messages drive the run, its exit fails it. */
function attachKernel(m: RunMoves, sessionId: string, run: ActiveRun): Kernel {
  const kernel = m.d.kernels.acquire(sessionId)
  run.kernel = kernel
  kernel.state = 'running'
  run.live.kernel = { instance_id: kernel.instanceId, state: 'running', build: kernel.build }
  kernel.listener = {
    onMessage: (msg) => onKernelMessage(m, sessionId, run, msg),
    onExit: (code, signal) => {
      const detail = `The kernel exited (${signal ?? `code ${code}`}) during the run`
      m.finish(sessionId, run, 'failed', problemBody('kernel_crashed', detail))
    },
  }
  return kernel
}

/** What the whole run keeps: its model, effort, tool scope and profile as they are at its start. */
function settleRun(d: RunsDeps, sessionId: string, run: ActiveRun, profile: ResolvedProfile): void {
  // The session's resolved model goes upstream; the profile's only fills a session without one.
  run.model = run.started.model || profile.transport.model
  run.effort = run.started.effort ?? profile.effort
  run.scope = scopeOf(d.core, sessionId, d.tools?.() ?? DEFAULT_TOOL_SETTINGS)
  run.profile = profile
}

/**
 * Waits for the kernel, the credential, the window and the MCP servers, then sends the first
 * step. A credential that cannot be had fails the run with its code (an interrupt meanwhile
 * ends it as interrupted).
 */
function awaitFirstStep(
  m: RunMoves,
  sessionId: string,
  run: ActiveRun,
  {
    profile,
    kernel,
    facts,
  }: { profile: ResolvedProfile; kernel: Kernel; facts: Promise<EnvironmentFacts> | null },
): void {
  const { d } = m
  const credential = d.credentials
    ? d.credentials.forRun(sessionId, profile, run.abort.signal, run.model)
    : Promise.resolve({ transport: profile.transport, accountId: null })
  const row = d.core.row(sessionId)
  const window = row && d.window ? d.window(row).catch(() => null) : Promise.resolve(null)
  // The session's MCP servers start (or are kept) while the credential is fetched.
  const mcp = kernel.ready.then(() => loadMcp(d, kernel, run.scope.workspace, run.scope.mcp))
  void Promise.all([kernel.ready, credential, window, mcp, facts]).then(
    ([, c, w, , f]) => {
      if (run.finished) return
      run.environment = f ? environmentBlock({ ...f, sandbox: kernel.host.sandbox }) : null
      run.window = w
      run.sent = true
      run.accountId = c.accountId
      run.live.kernel.build = kernel.build
      run.transport = {
        extension: profile.extension,
        profile: { ...c.transport, model: run.model },
        limits: profile.limits,
      }
      m.sendStep(sessionId, run)
    },
    (err: unknown) => {
      if (run.abort.signal.aborted) return m.finish(sessionId, run, 'interrupted', null)
      const code = err instanceof HearthError ? err.code : 'no_usable_account'
      m.finish(sessionId, run, 'failed', problemBody(code, (err as Error).message))
    },
  )
}
