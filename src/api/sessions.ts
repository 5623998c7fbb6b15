// Handlers of group `sessions`: every op whose id starts with `sessions.`. Each validates
// nothing itself (the route table did), calls one domain function and shapes the reply. The
// ops are bound in a few calls, each given only the dependencies its handlers use.
import type { Continuations } from '../http/continuation.ts'
import { jsonTextResponse } from '../http/respond.ts'
import { bindGroup } from '../http/route.ts'
import { sseResponse } from '../http/sse.ts'
import type { SessionMcpServerLists } from '../mcp/session-servers.ts'
import { refreshCatalogue } from '../models/refresh.ts'
import { interruptSession } from '../runs/control.ts'
import type { Runs } from '../runs/engine.ts'
import { reloadSession } from '../runs/session-kernel/reload.ts'
import { upgradeSessionKernel } from '../runs/session-kernel/upgrade.ts'
import { HearthError } from '../schemas/problems.ts'
import { sessionsOps } from '../schemas/sessions.ts'
import type { SessionsCore } from '../sessions/core.ts'
import type { HistoryEntry } from '../sessions/entries.ts'
import { parseCursorId } from '../sessions/frames.ts'
import { type ListKey, listKeyOf } from '../sessions/list.ts'
import { normalizeListFilter, type Sessions } from '../sessions/service.ts'
import type { StreamStart } from '../sessions/session-stream.ts'
import type { SessionRow } from '../sessions/types.ts'
import {
  configurationEtag,
  DEFAULT_TAIL,
  type ReadExtras,
  sessionEtag,
  toConfiguration,
  toRead,
  toSummary,
  usageModelOf,
} from '../sessions/views.ts'
import { modelsSettingsOf } from '../settings/derived.ts'
import type { Settings } from '../settings/service.ts'
import {
  CONTINUATION_ROOM,
  countTextsThatFit,
  countThatFitFromEnd,
  jsonBytes,
  MAX_JSON_BYTES,
} from '../util/json-budget.ts'
import { requireCreateOnly } from '../util/preconditions.ts'
import { lower } from '../util/uuid.ts'
import { type CatalogApiDeps, readCatalog } from './catalog.ts'
import { type ContextApiDeps, readContext } from './context.ts'
import { activeOutputPage, olderHistoryToken } from './history.ts'

export interface SessionsDeps {
  sessions: Sessions
  continuations: Continuations
  /** The context window of a model on a profile, when the model catalogue knows it. */
  contextWindow?: (profile: string, model: string) => Promise<number | null>
  /** A session stream is being served (the daemon's debug log says so). */
  onStream?: (sessionId: string) => void
}

const wantsStream = (accept: string) => /(^|,)\s*text\/event-stream/i.test(accept)
const VARY = 'Accept, Accept-Encoding'

function streamStart(
  q: { tail?: number; after_generation?: number; after_seq?: number },
  lastEventId: string | undefined,
): StreamStart {
  if (q.after_generation !== undefined || q.after_seq !== undefined) {
    if (q.after_generation === undefined || q.after_seq === undefined) {
      throw new HearthError('invalid_stream_position', 'Send after_generation and after_seq together')
    }
    return { generation: q.after_generation, seq: q.after_seq, tail: q.tail }
  }
  if (lastEventId !== undefined) {
    const cursor = parseCursorId(lastEventId)
    if (!cursor)
      throw new HearthError('invalid_stream_position', 'Last-Event-ID must be <generation>:<sequence>')
    return { ...cursor, tail: q.tail }
  }
  return { tail: q.tail ?? DEFAULT_TAIL }
}

/**
 * A SessionRead within the JSON size limit: the newest history entries that fit after the
 * rest of the read, and the continuation of the older ones (also when `tail` cut them).
 */
async function readBody(
  d: SessionsDeps,
  row: SessionRow,
  extras: Omit<ReadExtras, 'history'> & { history: HistoryEntry[] },
) {
  const contextWindow = (await d.contextWindow?.(row.provider_profile, usageModelOf(row))) ?? null
  const instructions = d.sessions.core.instructionSources(row)
  const composed = d.sessions.core.composed(row)
  const items = extras.history
  let kept: HistoryEntry[] = items
  if (items.length > 0) {
    const rest = jsonBytes(toRead(row, { ...extras, history: [], contextWindow, instructions, composed }))
    const fit = countThatFitFromEnd(items, MAX_JSON_BYTES - rest - CONTINUATION_ROOM)
    kept = items.slice(items.length - fit)
  }
  const first = kept[0]?.position ?? row.transcript_count + 1
  const older = first > 1 ? olderHistoryToken(d.continuations, row.id, first) : null
  return toRead(row, { ...extras, history: kept, older, contextWindow, instructions, composed })
}

type SessionsOps = typeof sessionsOps

/** The ops of group `sessions` with these ids. */
function opsOf<const K extends keyof SessionsOps>(...ids: K[]): Pick<SessionsOps, K> {
  return Object.fromEntries(ids.map((id) => [id, sessionsOps[id]])) as Pick<SessionsOps, K>
}

/** The session tree: list, read, create, configure, delete, visit. */
export function sessionsRoutes(d: SessionsDeps) {
  const s = d.sessions
  const ops = opsOf(
    'sessions.list',
    'sessions.get',
    'sessions.create',
    'sessions.configure',
    'sessions.delete',
    'sessions.visit',
  )
  return bindGroup(ops)({
    'sessions.list': (input) => {
      const { query, accept, header } = input
      const { sort, limit, next, ...filter } = query
      if (wantsStream(accept)) {
        if (sort !== undefined || limit !== undefined || next !== undefined) {
          throw new HearthError('invalid_parameter', 'The collection stream takes no sort, limit or next')
        }
        const stream = s.collectionStream(filter)
        const signal = input.signal // read only here: the signal is made on first read
        return { response: sseResponse(stream, { acceptEncoding: header('accept-encoding'), signal }) }
      }
      // The token binds the canonical query: `sort=activity` and no sort share tokens.
      const f = normalizeListFilter(filter)
      const binding = { ...f, sort: sort ?? 'activity' }
      const after = next ? d.continuations.open<ListKey>('sessions.list', binding, next) : null
      const page = s.list(f, binding.sort, limit ?? 50, after)
      // Each summary is serialized once, here: a page that would pass the JSON size limit
      // ends early, and its continuation goes on after its last item.
      const items = page.rows.map((r) => JSON.stringify(toSummary(r, s.core.live)))
      const fit = countTextsThatFit(items, MAX_JSON_BYTES - CONTINUATION_ROOM, 1)
      const nextKey = fit < items.length ? listKeyOf(binding.sort, page.rows[fit - 1]) : page.nextKey
      const token = nextKey && d.continuations.mint('sessions.list', binding, nextKey)
      const text = `{"items":[${items.slice(0, fit).join(',')}],"next":${JSON.stringify(token)}}`
      return { response: jsonTextResponse(200, text, { vary: VARY }, header('accept-encoding')) }
    },
    'sessions.get': async (input) => {
      const { params, query, accept, header } = input
      if (wantsStream(accept)) {
        if (query.view !== undefined)
          throw new HearthError('invalid_parameter', 'The session stream takes no view')
        // Snapshots are built without waiting: the model catalogue they read is loaded first.
        const row = s.get(params.session_id)
        await d.contextWindow?.(row.provider_profile, usageModelOf(row))
        const stream = s.sessionStream(params.session_id, streamStart(query, header('last-event-id')))
        d.onStream?.(params.session_id)
        const signal = input.signal
        return { response: sseResponse(stream, { acceptEncoding: header('accept-encoding'), signal }) }
      }
      if (query.after_generation !== undefined || query.after_seq !== undefined) {
        throw new HearthError('invalid_parameter', 'after_generation and after_seq apply to the stream only')
      }
      if (query.view === 'configuration') {
        if (query.tail !== undefined)
          throw new HearthError('invalid_parameter', 'The configuration view takes no tail')
        const row = s.get(params.session_id)
        return {
          status: 200,
          body: toConfiguration(row),
          headers: { etag: configurationEtag(row), vary: VARY },
        }
      }
      const tail = query.tail ?? DEFAULT_TAIL
      const { row, extras } = s.read(params.session_id, tail)
      return {
        status: 200,
        body: await readBody(d, row, extras),
        headers: { etag: sessionEtag(row, tail), vary: VARY },
      }
    },
    'sessions.create': async ({ params, body, ifNoneMatch }) => {
      // Existence (412) is decided inside the creating transaction.
      requireCreateOnly(ifNoneMatch, false)
      const row = s.create(params.session_id, body)
      // The same representation a GET without tail returns (a fork already has history; a
      // new session has neither history nor waiting inputs, so nothing is read for it).
      const extras = body.kind === 'new' ? s.core.emptyExtras() : s.core.readExtras(row.id, DEFAULT_TAIL)
      return {
        status: 201,
        body: await readBody(d, row, extras),
        headers: { location: `/sessions/${row.id}`, etag: sessionEtag(row) },
      }
    },
    'sessions.configure': ({ params, body, ifMatch }) => {
      const { row, followers } = s.change(params.session_id, ifMatch, body)
      return {
        status: 200,
        body: { resource: toConfiguration(row), followers },
        headers: { etag: configurationEtag(row) },
      }
    },
    'sessions.delete': async ({ params, query, ifMatch }) => ({
      status: 200,
      body: await s.remove(params.session_id, ifMatch, query.scope ?? 'leaf', query.family_revision),
    }),
    'sessions.visit': ({ params }) => ({ status: 200, body: s.visit(params.session_id, params.visit_id) }),
  })
}

/** What a session's runs do now: the interrupt, and the pages of the output of the run in progress. */
export function sessionRunRoutes(d: { core: SessionsCore; runs: Runs; continuations: Continuations }) {
  return bindGroup(opsOf('sessions.interrupt', 'sessions.active_output'))({
    'sessions.interrupt': async ({ params, body }) => ({
      status: 200,
      body: await interruptSession(d.core, d.runs, lower(params.session_id), body),
    }),
    'sessions.active_output': ({ params, query }) => ({
      status: 200,
      body: activeOutputPage(d.core, d.continuations, params, query),
    }),
  })
}

/** The context views and compaction. */
export function contextRoutes(d: ContextApiDeps) {
  return bindGroup(opsOf('sessions.context', 'sessions.compaction'))({
    'sessions.context': async ({ params, query }) => ({
      status: 200,
      body: await readContext(d, lower(params.session_id), query),
    }),
    'sessions.compaction': async ({ params, body }) => ({
      status: 200,
      body: await d.runs.compact(lower(params.session_id), body),
    }),
  })
}

export function catalogRoutes(d: CatalogApiDeps) {
  return bindGroup(opsOf('sessions.catalog'))({
    'sessions.catalog': ({ params, query }) => ({
      status: 200,
      body: readCatalog(d, lower(params.session_id), query),
    }),
  })
}

/**
 * Reload: composition from settings now, and the model catalogue from settings
 * `models.catalogue_url` into the home's cache (the file GET /models reads).
 */
export function reloadRoutes(d: { runs: Runs; settings: Settings; home: string }) {
  const catalogue = {
    source: () => modelsSettingsOf(d.settings).catalogue_url,
    refresh: (url: URL) => refreshCatalogue(url, d.home),
  }
  return bindGroup(opsOf('sessions.reload'))({
    'sessions.reload': async ({ params, body }) => ({
      status: 200,
      body: await reloadSession(d.runs, lower(params.session_id), body, {
        catalogue,
        readSettings: () => void d.settings.files(),
      }),
    }),
  })
}

/** The kernel upgrade (src/runs/session-kernel/upgrade.ts, src/kernel/upgrade.ts). */
export function kernelRoutes(d: { runs: Runs }) {
  return bindGroup(opsOf('sessions.kernel_upgrade'))({
    'sessions.kernel_upgrade': async ({ params }) => ({
      status: 200,
      body: await upgradeSessionKernel(d.runs, lower(params.session_id)),
    }),
  })
}

/** A session's own MCP servers (src/mcp/session-servers.ts): in the daemon's memory only. */
export function sessionMcpRoutes(d: { core: SessionsCore; lists: SessionMcpServerLists }) {
  return bindGroup(opsOf('sessions.mcp_servers', 'sessions.mcp_servers_replace'))({
    'sessions.mcp_servers': ({ params }) => {
      const row = d.core.require(lower(params.session_id))
      return { status: 200, body: d.lists.view(row.id) }
    },
    'sessions.mcp_servers_replace': ({ params, body }) => {
      const row = d.core.require(lower(params.session_id))
      d.lists.replace(row.id, body.servers)
      return { status: 200, body: d.lists.view(row.id) }
    },
  })
}
