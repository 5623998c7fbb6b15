// What a usage core prints: the CodexBar CLI contract (`usage --provider ID --format json`),
// one report object per provider, an array when several. hearth's own core prints it and so
// does CodexBar's CLI, which may replace it (HEARTH_USAGE_CORE). The shapes follow CodexBar's
// encoders (ProviderPayload, UsageSnapshot, RateWindow, NamedRateWindow, ProviderErrorPayload);
// fields hearth does not read (pace, credits, dashboards, details …) may be present and are
// ignored, so the objects allow more than they name.
import type { Static } from 'typebox'
import * as Type from 'typebox'

const Nullable = <T extends Type.TSchema>(t: T) => Type.Union([t, Type.Null()])
const Open = { additionalProperties: true } as const

/** One window of a limit: how much of it is used, how long it is, when it resets. */
export const RateWindow = Type.Object(
  {
    /** 0–100, not clamped (a provider may report over 100). */
    usedPercent: Type.Number(),
    windowMinutes: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
    /** ISO 8601 (CodexBar encodes dates so). */
    resetsAt: Type.Optional(Nullable(Type.String())),
    resetDescription: Type.Optional(Nullable(Type.String())),
  },
  Open,
)
export type RateWindow = Static<typeof RateWindow>

/** A further limit beside the three fixed ones (a model family's weekly window, say). */
export const NamedRateWindow = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    window: RateWindow,
    /** false: the provider names the limit but not its use (the reading's percent stays null). */
    usageKnown: Type.Optional(Type.Boolean()),
  },
  Open,
)
export type NamedRateWindow = Static<typeof NamedRateWindow>

export const UsageIdentity = Type.Object(
  {
    providerID: Type.Optional(Nullable(Type.String())),
    accountEmail: Type.Optional(Nullable(Type.String())),
    accountOrganization: Type.Optional(Nullable(Type.String())),
    /** The plan ("plus", "pro", "max" …). */
    loginMethod: Type.Optional(Nullable(Type.String())),
  },
  Open,
)

export const UsageSnapshot = Type.Object(
  {
    /** The session window (5 h for Codex and Claude). */
    primary: Type.Optional(Nullable(RateWindow)),
    /** The weekly window. */
    secondary: Type.Optional(Nullable(RateWindow)),
    /** A third fixed window (a model-specific weekly one). */
    tertiary: Type.Optional(Nullable(RateWindow)),
    extraRateWindows: Type.Optional(Nullable(Type.Array(NamedRateWindow))),
    identity: Type.Optional(Nullable(UsageIdentity)),
    accountEmail: Type.Optional(Nullable(Type.String())),
    loginMethod: Type.Optional(Nullable(Type.String())),
    updatedAt: Type.Optional(Nullable(Type.String())),
  },
  Open,
)
export type UsageSnapshot = Static<typeof UsageSnapshot>

export const ProviderStatus = Type.Object(
  {
    /** none, minor, major, critical, maintenance, unknown. */
    indicator: Type.String(),
    description: Type.Optional(Nullable(Type.String())),
  },
  Open,
)

/** A provider failure, reported as data: `usage` is null beside it. */
export const ReportError = Type.Object(
  {
    code: Type.Integer(),
    message: Type.String(),
    /** args, config, provider, runtime. */
    kind: Type.Optional(Type.String()),
  },
  Open,
)
export type ReportError = Static<typeof ReportError>

export const UsageReport = Type.Object(
  {
    /** The feed's provider id (`codex`, `claude`, `antigravity`, `zai` …). */
    provider: Type.String({ minLength: 1 }),
    account: Type.Optional(Nullable(Type.String())),
    version: Type.Optional(Nullable(Type.String())),
    /** Where the core read it: oauth, api, cli, web, auto. */
    source: Type.Optional(Type.String()),
    status: Type.Optional(Nullable(ProviderStatus)),
    usage: Type.Optional(Nullable(UsageSnapshot)),
    error: Type.Optional(Nullable(ReportError)),
  },
  Open,
)
export type UsageReport = Static<typeof UsageReport>

/**
 * The core's exit codes (CodexBar's): 0 ok, 1 unexpected, 2 a provider binary missing,
 * 3 parse or format error, 4 timeout. A report with an error may come with a non-zero code;
 * the report, when it parses, is what counts.
 */
export const CORE_EXIT = { ok: 0, unexpected: 1, missingBinary: 2, parse: 3, timeout: 4 } as const
