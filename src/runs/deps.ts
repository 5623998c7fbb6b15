// What the run engine is built from (the daemon wires these in src/daemon/services.ts), and the
// few things the engine's parts ask of it. They live apart from engine.ts so that its parts
// (launch.ts, step.ts, session-kernel/mcp.ts, ...) can name them without importing the engine.
import type { CompactionSettings } from '../context/summary.ts'
import type { SessionTools } from '../context/tools.ts'
import type { KernelPool } from '../kernel/pool.ts'
import type { McpAccess } from '../mcp/oauth/access.ts'
import type { McpServerConfig } from '../mcp/types.ts'
import type { CacheRule } from '../models/cache-policy.ts'
import type { TransportProfile } from '../providers/types.ts'
import type { Problem } from '../schemas/problems.ts'
import type { SessionsCore } from '../sessions/core.ts'
import type { SessionRow } from '../sessions/types.ts'
import type { Profiles, ResolvedProfile } from '../settings/profiles.ts'
import type { ActiveRun, RunToolScope, ToolSettings } from './active-run.ts'
import type { RunOutcome } from './finish.ts'

export interface RunsDeps {
  core: SessionsCore
  kernels: KernelPool
  profiles: Profiles
  onError: (err: unknown) => void
  /** The credential of a run for profiles that sign in (absent: the profile's own key). */
  credentials?: RunCredentials
  /** The `tools` settings as they are now (absent: the defaults). */
  tools?: () => ToolSettings
  /**
   * The MCP servers session `sessionId` in `workspace` uses, as the settings are now, with
   * the session's own servers (absent: none).
   */
  mcp?: (workspace: string, selection?: Record<string, boolean>, sessionId?: string) => McpServerConfig[]
  /** Access tokens of signed-in MCP servers (absent: no server is signed in). */
  mcpAccess?: McpAccess
  /** Logs a warning (an MCP server that failed to start or exited). */
  onNotice?: (fields: Record<string, unknown>, message: string) => void
  /** The tools requests offer (built-in and registered sources). */
  sessionTools?: SessionTools
  /** The model window of a session's model, when the catalogue knows it. */
  window?: (row: SessionRow) => Promise<number | null>
  /** The `compaction` settings as they are now (absent: automatic compaction off). */
  compaction?: () => CompactionSettings
  /** The user's prompt-cache rules as the settings are now (absent: the built-in ones only). */
  cacheRules?: () => readonly CacheRule[]
  /** Workspace snapshots of runs (absent: none are taken). */
  snapshots?: RunSnapshots
}

/** A run's workspace snapshots (snapshots/recording.ts). */
export interface RunSnapshots {
  /**
   * The model asked for a tool: the run's roots are captured in the background for its
   * `before` (once per run; nothing once the `before` is recorded).
   */
  prepare(runId: string, scope: RunToolScope): void
  /** Before the run's first call that is not a read; resolves once its row is committed. */
  before(sessionId: string, runId: string, scope: RunToolScope): Promise<void>
  /** The run has ended: its `after` is taken in the background. */
  after(sessionId: string, runId: string): void
}

/** Signed-in accounts as runs use them (src/auth/run-credentials.ts). */
export interface RunCredentials {
  /** The transport profile carrying this run's credential for `model`; rejects with a HearthError. */
  forRun(
    sessionId: string,
    profile: ResolvedProfile,
    signal: AbortSignal,
    model: string,
  ): Promise<{ transport: TransportProfile; accountId: string | null }>
  /** The provider answered 401 to this account's credential. */
  unauthorized(profile: ResolvedProfile, accountId: string): Promise<void>
  /**
   * The provider said this account is used up until `untilMs` (epoch ms) for `model`: the
   * pool puts it last (for that model's meter where the provider meters by model).
   */
  limited(profile: ResolvedProfile, accountId: string, untilMs: number, model: string): Promise<void>
}

/**
 * The engine's moves its parts may make on a run: the engine alone keeps the table of
 * active runs, so ending a run or taking the next step goes through it.
 */
export interface RunMoves {
  readonly d: RunsDeps
  /** Sends the run's next model step (or notes that one is due once the step in flight ends). */
  sendStep(sessionId: string, run: ActiveRun): void
  /** Ends the run once: commits its outcome and frees the session for the next. */
  finish(sessionId: string, run: ActiveRun, outcome: RunOutcome, problem: Problem | null): void
  /** A step asked for tools: runs them, then the next step. */
  toolRound(sessionId: string, run: ActiveRun): void
}
