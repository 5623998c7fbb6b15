// Rows → wire representations. Fields whose features arrive later are present with their
// empty values, never missing.
import type { InstructionSource } from '../instructions/index.ts'
import type { ConfigurationResource } from '../schemas/session-configuration.ts'
import type { SessionRead, SessionSummary } from '../schemas/session-read.ts'
import type { LiveRun, LiveRuns } from './live.ts'
import type { SelectionMaps, SessionRow } from './types.ts'

/** History entries a read or a fresh stream shows when the client names no tail. */
export const DEFAULT_TAIL = 100

export function configurationUrl(id: string): string {
  return `/sessions/${id}?view=configuration`
}

export function configurationEtag(r: SessionRow): string {
  return `"c${r.revision}.o${r.opens}.f${r.family_revision}"`
}

/** Every change appends an event (seq) or moves the family; `tail` shapes the history part. */
export function sessionEtag(r: SessionRow, tail = DEFAULT_TAIL): string {
  const shape = tail === DEFAULT_TAIL ? '' : `.t${tail}`
  return `"g${r.generation}.s${r.seq}.f${r.family_revision}${shape}"`
}

function iso(ms: number): string {
  return new Date(ms).toISOString()
}

const json = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T))

/** Characters of each activity line shown: the end of the line. */
const ACTIVITY_TAIL_CHARS = 1024

/** The last `n` UTF-16 units of `text`, never starting inside a surrogate pair. */
function endOf(text: string, n: number): string {
  if (text.length <= n) return text
  const start = text.length - n
  return text.slice(/[\uDC00-\uDFFF]/.test(text[start]) ? start + 1 : start)
}

/** The last three lines of a text, the end of each only: a glance, bounded whatever the text. */
function lastLines(text: string): string[] {
  return endOf(text, ACTIVITY_TAIL_CHARS * 3)
    .split('\n')
    .slice(-3)
    .map((l) => endOf(l, ACTIVITY_TAIL_CHARS))
}

/** The last lines of the newest text the run in progress produced (its visible activity). */
function activityOf(r: SessionRow, run: LiveRun | undefined): SessionSummary['activity'] {
  if (!run) return { lines: [], output_scalars: 0, output_utf8_bytes: 0, observed_at: iso(r.activity_ms) }
  const last = run.contents.at(-1)
  return {
    lines: last ? lastLines(last.text) : [],
    output_scalars: run.contents.reduce((n, c) => n + c.text.length, 0),
    output_utf8_bytes: run.contents.reduce((n, c) => n + c.utf8_bytes, 0),
    observed_at: iso(run.observed_ms),
  }
}

/** The tool calls running now, each with the last lines of its output so far. */
function currentProgressOf(run: LiveRun | undefined): SessionSummary['current_progress'] {
  return (run?.tools ?? []).map(({ tail, ...t }) => ({
    ...t,
    // A trailing newline ends the last line; it does not start an empty one.
    lines: tail === '' ? [] : lastLines(tail.endsWith('\n') ? tail.slice(0, -1) : tail),
  }))
}

function activeOutputOf(r: SessionRow, live: LiveRuns | undefined): unknown[] {
  const run = live?.get(r.id)
  if (!run) return []
  return run.contents.map((c) => ({
    content_id: c.content_id,
    run_id: c.run_id,
    kind: c.kind,
    utf8_bytes: c.utf8_bytes,
    snapshot: live?.snapshotOf(c) ?? '',
    url: `/sessions/${r.id}/active-output/${c.content_id}`,
  }))
}

export function toSummary(r: SessionRow, live?: LiveRuns): SessionSummary {
  const run = live?.get(r.id)
  return {
    id: r.id,
    name: r.name,
    automatic_name: r.automatic_name,
    workspace: r.workspace,
    location: { host: null, user: null, path: r.workspace, label: null },
    parent_id: r.parent_id,
    root_id: r.root_id,
    address: null,
    depth: r.depth,
    closed: false,
    created_at: r.created_at,
    activity_at: iso(r.activity_ms),
    provider_profile: r.provider_profile,
    model: r.model,
    effort: r.effort,
    status: {
      phase: r.phase as SessionSummary['status']['phase'],
      run_id: r.run_id,
      interrupt_requested: r.interrupt_requested === 1,
      blocking_reason: json(r.blocking_reason),
    },
    preview: {
      text: r.preview_text,
      transcript_count: r.transcript_count,
      truncated: r.preview_truncated === 1,
    },
    preferences: {
      pinned: r.pinned === 1,
      pin_order: r.pin_order,
      archived: r.archived === 1,
      opens: r.opens,
    },
    current_progress: currentProgressOf(run),
    active_output: activeOutputOf(r, live),
    activity: activityOf(r, run),
    latest_input: json(r.latest_input),
    latest_answer: json(r.latest_answer),
    cursor: { generation: r.generation, sequence: r.seq },
  }
}

export function selectionOf(r: SessionRow): SelectionMaps {
  return JSON.parse(r.selection) as SelectionMaps
}

export function toConfiguration(r: SessionRow): ConfigurationResource {
  return {
    url: configurationUrl(r.id),
    etag: configurationEtag(r),
    value: {
      id: r.id,
      name: r.name,
      workspace: r.workspace,
      provider_profile: r.provider_profile,
      model: r.model,
      effort: r.effort,
      preferences: {
        pinned: r.pinned === 1,
        pin_order: r.pin_order,
        archived: r.archived === 1,
        opens: r.opens,
      },
      selection: selectionOf(r),
      catalog_revision: r.catalog_revision,
      approval_policy: r.approval_policy as ConfigurationResource['value']['approval_policy'],
      allow_git_writes: r.allow_git_writes === 1,
      revision: r.revision,
      family_revision: r.family_revision,
      workspace_change: r.workspace_change === null ? null : JSON.parse(r.workspace_change),
    },
  }
}

/** What a read shows of a session's selection beyond its own entries (src/catalog/selection.ts). */
export interface Composed {
  effective: SelectionMaps
  dependencies: SessionRead['composition']['dependencies']
}

export interface ReadExtras {
  history?: unknown[]
  /** Continuation of the history before the items shown (GET .../history?next=). */
  older?: string | null
  pending?: unknown[]
  live?: LiveRuns
  /** The model's context window when the catalogue knows it. */
  contextWindow?: number | null
  /** The instruction files the session's next step sends (reads only; never the list). */
  instructions?: InstructionSource[]
  /** The effective selection and the dependencies (without: the entries alone, none). */
  composed?: Composed
}

const EMPTY_USAGE: SessionRead['usage'] = {
  model: null,
  observed_at: null,
  prompt_tokens: null,
  cached_prompt_tokens: null,
  cache_write_tokens: null,
  completion_tokens: null,
  total_tokens: null,
  elapsed_ms: null,
  tokens_per_second: null,
  context_window_tokens: null,
  cache_ttl_seconds: null,
  cache_fade: [],
}

/** The model whose context window a read shows: that of the last run, else the configured one. */
export function usageModelOf(r: SessionRow): string {
  return (r.usage && (JSON.parse(r.usage) as { model?: string | null }).model) || r.model
}

function usageOf(r: SessionRow, contextWindow: number | null): SessionRead['usage'] {
  const usage = { ...EMPTY_USAGE, ...json<Partial<SessionRead['usage']>>(r.usage) }
  return { ...usage, context_window_tokens: usage.context_window_tokens ?? contextWindow }
}

export function toRead(r: SessionRow, extras: ReadExtras = {}): SessionRead {
  const selection = selectionOf(r)
  const historyItems = extras.history ?? []
  const facts = extras.live?.kernelOf(r.id)
  const kernel = extras.live?.get(r.id)?.kernel ?? facts
  const jobs = extras.live?.jobsOf(r.id) ?? []
  return {
    ...toSummary(r, extras.live),
    creation: JSON.parse(r.creation),
    configuration_resource: toConfiguration(r),
    selection: { overrides: selection, effective: extras.composed?.effective ?? selection },
    composition: {
      desired_revision: r.desired_revision,
      loaded_revision: r.loaded_revision,
      needs_reload: r.loaded_revision !== r.desired_revision,
      dependencies: extras.composed?.dependencies ?? {},
      ...(extras.live?.compositionOf(r.id) ?? { quarantine: [], availability: {} }),
    },
    kernel: {
      instance_id: kernel?.instance_id ?? null,
      state: kernel?.state ?? 'none',
      stage: facts?.stage ?? null,
      build: kernel?.build ?? null,
      stale: facts?.stale ?? false,
      staleness_reasons: facts?.staleness_reasons ?? [],
      live_job_count: jobs.length,
      running_jobs: jobs,
      sandbox: extras.live?.sandboxOf(r.id) ?? {
        isolated: false,
        kind: null,
        network: false,
        reason: 'No kernel process has started yet',
        hidden_paths: [],
        git_writable: r.allow_git_writes === 1,
      },
    },
    pending_inputs: extras.pending ?? [],
    input_order: r.input_order,
    usage: usageOf(r, extras.contextWindow ?? null),
    // The items are the newest: nothing newer to page to.
    history: {
      items: historyItems,
      older: extras.older ?? null,
      newer: null,
      high_water: r.transcript_count,
    },
    glances: [],
    instructions: extras.instructions ?? [],
    last_change: json(r.last_change),
  }
}
