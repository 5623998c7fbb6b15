// Sessions against the real daemon: creation (new, fork, child), reads, configuration
// changes and workspace moves, visits, deletion and the per-session event log.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import Database from 'better-sqlite3'
import { v4 as uuidv4, v7 as uuidv7 } from 'uuid'
import { type RawResponse, startDaemon, type TestDaemon } from '../helpers/daemon.ts'

// ---- The field lists of protocol-3.md, "Session (summary)" and "SessionRead" ----------

const SUMMARY_KEYS = [
  'id',
  'name',
  'automatic_name',
  'workspace',
  'location',
  'parent_id',
  'root_id',
  'address',
  'depth',
  'closed',
  'created_at',
  'activity_at',
  'provider_profile',
  'model',
  'effort',
  'status',
  'preview',
  'preferences',
  'current_progress',
  'active_output',
  'activity',
  'latest_input',
  'latest_answer',
  'cursor',
]
const READ_KEYS = [
  ...SUMMARY_KEYS,
  'creation',
  'configuration_resource',
  'selection',
  'composition',
  'kernel',
  'pending_inputs',
  'input_order',
  'usage',
  'history',
  'glances',
  // hearth's own addition: the instruction files a turn sends (docs/instructions.md).
  'instructions',
  // hearth's own addition: the last change to the workspace's files (docs/checkpoints.md).
  'last_change',
]
const NESTED_KEYS: Record<string, string[]> = {
  location: ['host', 'user', 'path', 'label'],
  status: ['phase', 'run_id', 'interrupt_requested', 'blocking_reason'],
  preview: ['text', 'transcript_count', 'truncated'],
  preferences: ['pinned', 'pin_order', 'archived', 'opens'],
  activity: ['lines', 'output_scalars', 'output_utf8_bytes', 'observed_at'],
  cursor: ['generation', 'sequence'],
  creation: ['submitted', 'resolved'],
  // The spec names kind, workspace, name, provider_profile, model, effort; fork and child
  // requests (whose fields the spec leaves open) add source_id, through_entry, parent_id.
  'creation.submitted': [
    'kind',
    'workspace',
    'name',
    'provider_profile',
    'model',
    'effort',
    'source_id',
    'through_entry',
    'parent_id',
  ],
  'creation.resolved': ['workspace', 'provider_profile', 'model', 'effort', 'revision', 'family_revision'],
  configuration_resource: ['url', 'etag', 'value'],
  selection: ['overrides', 'effective'],
  'selection.overrides': ['extensions', 'skills', 'instructions', 'mcp'],
  'selection.effective': ['extensions', 'skills', 'instructions', 'mcp'],
  composition: [
    'desired_revision',
    'loaded_revision',
    'needs_reload',
    'dependencies',
    'quarantine',
    'availability',
  ],
  kernel: [
    'instance_id',
    'state',
    'stage',
    'build',
    'stale',
    'staleness_reasons',
    'live_job_count',
    'running_jobs',
    // Whether its commands run in the sandbox (docs/tools.md).
    'sandbox',
  ],
  usage: [
    'model',
    'observed_at',
    'prompt_tokens',
    'cached_prompt_tokens',
    'cache_write_tokens',
    'completion_tokens',
    'total_tokens',
    'elapsed_ms',
    'tokens_per_second',
    'context_window_tokens',
    'cache_ttl_seconds',
    'cache_fade',
  ],
  history: ['items', 'older', 'newer', 'high_water'],
}
// The spec's configuration value plus catalog_revision and approval_policy, which
// SessionChangeRequest writes.
const CONFIG_VALUE_KEYS = [
  'id',
  'name',
  'workspace',
  'provider_profile',
  'model',
  'effort',
  'preferences',
  'selection',
  'catalog_revision',
  'approval_policy',
  'allow_git_writes',
  'revision',
  'family_revision',
  'workspace_change',
]
const SELECTION_KEYS = ['extensions', 'skills', 'instructions', 'mcp']

const sorted = (keys: Iterable<string>) => [...keys].sort()
const at = (o: any, path: string) => path.split('.').reduce((n, k) => n[k], o)

function assertKeys(body: any, top: string[], label: string): void {
  assert.deepEqual(sorted(Object.keys(body)), sorted(top), `${label}: top-level keys`)
  for (const [path, keys] of Object.entries(NESTED_KEYS)) {
    if (!top.includes(path.split('.')[0])) continue
    assert.deepEqual(sorted(Object.keys(at(body, path))), sorted(keys), `${label}: keys of ${path}`)
  }
}

// ---- Helpers --------------------------------------------------------------------------

const MERGE = 'application/merge-patch+json'
const dirs: string[] = []

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-ws-'))
  dirs.push(dir)
  return dir
}

function expectProblem(res: RawResponse, status: number, code: string): any {
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status}: ${res.text()}`)
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/)
  const body = res.json()
  assert.equal(body.code, code, res.text())
  assert.equal(body.status, status)
  return body
}

function api(d: TestDaemon) {
  const send = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
    d.request({
      method,
      path,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  const a = {
    put: (id: string, body: unknown, headers: Record<string, string> = { 'if-none-match': '*' }) =>
      send('PUT', `/sessions/${id}`, body, headers),
    /** Creates and returns the 201 body. */
    create: async (body: Record<string, unknown>, id = uuidv7()) => {
      const res = await a.put(id, body)
      assert.equal(res.status, 201, res.text())
      return res.json()
    },
    get: (id: string, query = '') => d.request({ path: `/sessions/${id}${query}` }),
    read: async (id: string) => {
      const res = await a.get(id)
      assert.equal(res.status, 200, res.text())
      return res.json()
    },
    config: async (id: string) => {
      const res = await a.get(id, '?view=configuration')
      assert.equal(res.status, 200, res.text())
      return res.json()
    },
    patch: (id: string, body: unknown, ifMatch: string | undefined, query = '?view=configuration') =>
      d.request({
        method: 'PATCH',
        path: `/sessions/${id}${query}`,
        headers: { 'content-type': MERGE, ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }) },
        body: JSON.stringify(body),
      }),
    /** PATCH with the current validator. */
    change: async (id: string, body: unknown) => {
      const res = await a.patch(id, body, (await a.config(id)).etag)
      assert.equal(res.status, 200, res.text())
      return res.json()
    },
    remove: (id: string, ifMatch: string | undefined, query = '') =>
      d.request({
        method: 'DELETE',
        path: `/sessions/${id}?view=configuration${query}`,
        headers: ifMatch === undefined ? {} : { 'if-match': ifMatch },
      }),
    visit: (id: string, visitId: string) => send('PUT', `/sessions/${id}/visits/${visitId}`, {}),
    seq: async (id: string) => (await a.read(id)).cursor.sequence as number,
    familyRevision: async (id: string) => (await a.config(id)).value.family_revision as number,
  }
  return a
}

// ---- Tests ----------------------------------------------------------------------------

describe('sessions', () => {
  let d: TestDaemon
  let s: ReturnType<typeof api>
  let ws: string

  before(async () => {
    d = await startDaemon()
    s = api(d)
    ws = workspace()
  })
  after(async () => {
    await d.stop()
    for (const dir of [...dirs, d.home]) rmSync(dir, { recursive: true, force: true })
  })

  describe('PUT /sessions/{id}', () => {
    it('creates an idle root that needs a reload, with Location and ETag', async () => {
      const id = uuidv7()
      const res = await s.put(id, {
        kind: 'new',
        workspace: ws,
        name: 'First',
        provider_profile: 'prof-a',
        model: 'm-1',
        effort: 'high',
      })
      assert.equal(res.status, 201, res.text())
      assert.equal(res.headers.location, `/sessions/${id}`)
      assert.match(String(res.headers.etag), /^"[^"]+"$/)
      const b = res.json()
      assertKeys(b, READ_KEYS, 'created session')
      assert.equal(b.id, id)
      assert.equal(b.name, 'First')
      assert.equal(b.workspace, ws)
      assert.deepEqual(b.location, { host: null, user: null, path: ws, label: null })
      assert.equal(b.parent_id, null)
      assert.equal(b.root_id, id)
      assert.equal(b.depth, 0)
      assert.equal(b.provider_profile, 'prof-a')
      assert.equal(b.model, 'm-1')
      assert.equal(b.effort, 'high')
      assert.deepEqual(b.status, {
        phase: 'idle',
        run_id: null,
        interrupt_requested: false,
        blocking_reason: null,
      })
      assert.equal(b.composition.needs_reload, true)
      assert.equal(b.composition.loaded_revision, null)
      assert.equal(b.kernel.state, 'none')
      assert.deepEqual(b.preferences, { pinned: false, pin_order: null, archived: false, opens: 0 })
      assert.deepEqual(b.creation.submitted, {
        kind: 'new',
        workspace: ws,
        name: 'First',
        provider_profile: 'prof-a',
        model: 'm-1',
        effort: 'high',
        source_id: null,
        through_entry: null,
        parent_id: null,
      })
      assert.equal(b.creation.resolved.workspace, ws)
      assert.equal(b.creation.resolved.revision, 1)
      assert.equal(b.creation.resolved.family_revision, 1)
      assert.equal(b.cursor.sequence, 1, 'the creation is the first event')
      // The 201 body is the representation GET returns, under the same validator.
      const get = await s.get(id)
      assert.deepEqual(get.json(), b)
      assert.equal(get.headers.etag, res.headers.etag)
    })

    it('requires If-None-Match: *', async () => {
      const id = uuidv7()
      expectProblem(await s.put(id, { kind: 'new', workspace: ws }, {}), 428, 'precondition_required')
      expectProblem(await s.get(id), 404, 'session_not_found')
    })

    it('requires a UUIDv7 id', async () => {
      expectProblem(await s.put(uuidv4(), { kind: 'new', workspace: ws }), 400, 'invalid_id')
      expectProblem(await s.put('not-a-uuid', { kind: 'new', workspace: ws }), 400, 'invalid_id')
    })

    it('answers 412 for an existing id and keeps the original creation', async () => {
      const id = uuidv7()
      const first = await s.create({ kind: 'new', workspace: ws, name: 'original' }, id)
      const again = await s.put(id, {
        kind: 'new',
        workspace: workspace(),
        name: 'replacement',
        model: 'other',
      })
      expectProblem(again, 412, 'precondition_failed')
      const b = await s.read(id)
      assert.deepEqual(b.creation, first.creation)
      assert.equal(b.creation.submitted.name, 'original')
      assert.equal(b.name, 'original')
      assert.equal(b.workspace, ws)
      assert.equal(b.cursor.sequence, 1, 'the refused PUT appended nothing')
      // An id differing only in letter case names the same session.
      expectProblem(await s.put(id.toUpperCase(), { kind: 'new', workspace: ws }), 412, 'precondition_failed')
      assert.equal((await s.read(id.toUpperCase())).id, id)
    })

    it('checks the workspace: absolute, existing, a directory', async () => {
      const file = join(ws, 'a-file')
      writeFileSync(file, 'x')
      const cases: [string, string][] = [
        ['relative/dir', 'workspace_not_absolute'],
        [join(ws, 'missing'), 'workspace_not_found'],
        [file, 'workspace_not_directory'],
      ]
      for (const [path, code] of cases) {
        const id = uuidv7()
        expectProblem(await s.put(id, { kind: 'new', workspace: path }), 400, code)
        expectProblem(await s.get(id), 404, 'session_not_found')
      }
    })

    it('refuses unknown fields and kinds', async () => {
      expectProblem(await s.put(uuidv7(), { kind: 'new', workspace: ws, extra: 1 }), 400, 'unknown_field')
      expectProblem(await s.put(uuidv7(), { kind: 'clone', workspace: ws }), 400, 'invalid_request')
      expectProblem(await s.put(uuidv7(), { kind: 'new' }), 400, 'invalid_request')
    })

    it('forks: a new root with the source history copied up to through_entry', async () => {
      const source = await s.create({ kind: 'new', workspace: ws, model: 'm-src', effort: 'low' })
      // History arrives with runs; write five entries beside the daemon (WAL admits it).
      const db = new Database(join(d.home, 'state.db'), { timeout: 5000 })
      try {
        const insert = db.prepare(
          'INSERT INTO entries (session_id, position, kind, created_at, content) VALUES (?, ?, ?, ?, ?)',
        )
        for (let p = 1; p <= 5; p++)
          insert.run(source.id, p, 'message', new Date().toISOString(), `{"n":${p}}`)
      } finally {
        db.close()
      }
      const familyBefore = await s.familyRevision(source.id)

      const partial = await s.create({
        kind: 'forked',
        source_id: source.id,
        through_entry: 3,
        name: 'Partial',
      })
      assert.deepEqual(partial.creation.submitted, {
        kind: 'forked',
        workspace: null,
        name: 'Partial',
        provider_profile: null,
        model: null,
        effort: null,
        source_id: source.id,
        through_entry: 3,
        parent_id: null,
      })
      assert.equal(partial.parent_id, null)
      assert.equal(partial.root_id, partial.id)
      assert.equal(partial.depth, 0)
      assert.equal(partial.workspace, ws, 'inherits the source workspace')
      assert.equal(partial.model, 'm-src')
      assert.equal(partial.effort, 'low')
      assert.equal(partial.creation.resolved.model, 'm-src')
      const read = await s.read(partial.id)
      assert.equal(read.history.high_water, 3)
      assert.equal(read.preview.transcript_count, 3)
      assert.deepEqual(
        read.history.items.map((e: any) => [e.position, e.content.n]),
        [
          [1, 1],
          [2, 2],
          [3, 3],
        ],
      )
      // tail bounds the history a read shows, and the validator tells the shapes apart.
      const tailed = await s.get(partial.id, '?tail=1')
      assert.deepEqual(
        tailed.json().history.items.map((e: any) => e.position),
        [3],
      )
      assert.notEqual(tailed.headers.etag, (await s.get(partial.id)).headers.etag)

      // `fork`, the name hearth used before, is no alias: the protocol has none.
      expectProblem(await s.put(uuidv7(), { kind: 'fork', source_id: source.id }), 400, 'invalid_request')
      const whole = await s.read((await s.create({ kind: 'forked', source_id: source.id })).id)
      assert.equal(whole.creation.submitted.kind, 'forked')
      assert.equal(whole.creation.submitted.through_entry, null, 'submitted shows what was sent')
      assert.equal(whole.history.high_water, 5)
      assert.equal(whole.preview.transcript_count, 5)

      const none = await s.read(
        (await s.create({ kind: 'forked', source_id: source.id, through_entry: 0 })).id,
      )
      assert.equal(none.history.high_water, 0)
      assert.deepEqual(none.history.items, [])

      const elsewhere = workspace()
      const moved = await s.create({
        kind: 'forked',
        source_id: source.id,
        workspace: elsewhere,
        model: 'm-own',
      })
      assert.equal(moved.workspace, elsewhere)
      assert.equal(moved.model, 'm-own')

      expectProblem(
        await s.put(uuidv7(), { kind: 'forked', source_id: source.id, through_entry: 6 }),
        409,
        'entry_out_of_range',
      )
      expectProblem(await s.put(uuidv7(), { kind: 'forked', source_id: uuidv7() }), 409, 'source_unavailable')
      // The source is untouched: forks are new families.
      assert.equal(await s.familyRevision(source.id), familyBefore)
      assert.equal((await s.read(source.id)).cursor.sequence, 1)
    })

    it('creates children one level deeper in the parent family', async () => {
      const root = await s.create({ kind: 'new', workspace: ws, model: 'm-root' })
      assert.equal(await s.familyRevision(root.id), 1)
      const child = await s.create({ kind: 'child', parent_id: root.id, name: 'kid' })
      assert.equal(child.parent_id, root.id)
      assert.equal(child.root_id, root.id)
      assert.equal(child.depth, 1)
      assert.equal(child.workspace, ws)
      assert.equal(child.model, 'm-root')
      assert.equal(child.creation.submitted.kind, 'child')
      assert.equal(child.creation.submitted.parent_id, root.id)
      assert.equal(child.creation.resolved.family_revision, 2)
      assert.equal(await s.familyRevision(root.id), 2)
      assert.equal(await s.familyRevision(child.id), 2)

      const grandchild = await s.create({ kind: 'child', parent_id: child.id })
      assert.equal(grandchild.depth, 2)
      assert.equal(grandchild.root_id, root.id)
      assert.equal(grandchild.parent_id, child.id)
      assert.equal(await s.familyRevision(root.id), 3)

      expectProblem(await s.put(uuidv7(), { kind: 'child', parent_id: uuidv7() }), 409, 'parent_unavailable')
      assert.equal(await s.familyRevision(root.id), 3, 'a refused child changes nothing')
    })

    it('answers 410 for the id of a deleted session', async () => {
      const b = await s.create({ kind: 'new', workspace: ws })
      const del = await s.remove(b.id, b.configuration_resource.etag)
      assert.equal(del.status, 200, del.text())
      expectProblem(await s.put(b.id, { kind: 'new', workspace: ws }), 410, 'session_deleted')
    })
  })

  describe('GET /sessions/{id}', () => {
    it('shows every field of the summary and of SessionRead, with ETag and Vary', async () => {
      const root = await s.create({ kind: 'new', workspace: ws })
      const child = await s.create({ kind: 'child', parent_id: root.id })
      for (const id of [root.id, child.id]) {
        const res = await s.get(id)
        assert.equal(res.status, 200)
        assert.match(String(res.headers.etag), /^"[^"]+"$/)
        assert.match(String(res.headers.vary), /Accept/)
        const b = res.json()
        assertKeys(b, READ_KEYS, 'SessionRead')
        assert.deepEqual(sorted(Object.keys(b.configuration_resource.value)), sorted(CONFIG_VALUE_KEYS))
        assert.deepEqual(
          sorted(Object.keys(b.configuration_resource.value.selection)),
          sorted(SELECTION_KEYS),
        )
        assert.deepEqual(
          sorted(Object.keys(b.configuration_resource.value.preferences)),
          sorted(NESTED_KEYS.preferences),
        )
      }
      // Summaries (list items) carry exactly the summary fields.
      const page = await d.request({ path: `/sessions?family_id=${root.id}` })
      assert.equal(page.status, 200)
      assert.deepEqual(sorted(Object.keys(page.json())), ['items', 'next'])
      for (const item of page.json().items) assertKeys(item, SUMMARY_KEYS, 'summary')
    })

    it('answers 404 for an unknown id and 410 for a deleted one', async () => {
      expectProblem(await s.get(uuidv7()), 404, 'session_not_found')
      expectProblem(await s.get(uuidv7(), '?view=configuration'), 404, 'session_not_found')
      const b = await s.create({ kind: 'new', workspace: ws })
      assert.equal((await s.remove(b.id, b.configuration_resource.etag)).status, 200)
      expectProblem(await s.get(b.id), 410, 'session_deleted')
      expectProblem(await s.get(b.id, '?view=configuration'), 410, 'session_deleted')
      expectProblem(await s.visit(b.id, uuidv7()), 410, 'session_deleted')
      expectProblem(await s.patch(b.id, { name: 'x' }, b.configuration_resource.etag), 410, 'session_deleted')
    })
  })

  describe('configuration', () => {
    it('reads {url, etag, value} with the ETag header equal to etag', async () => {
      const b = await s.create({ kind: 'new', workspace: ws, name: 'conf' })
      const res = await s.get(b.id, '?view=configuration')
      assert.equal(res.status, 200)
      const c = res.json()
      assert.deepEqual(sorted(Object.keys(c)), ['etag', 'url', 'value'])
      assert.equal(c.url, `/sessions/${b.id}?view=configuration`)
      assert.equal(res.headers.etag, c.etag)
      assert.deepEqual(c, b.configuration_resource)
      expectProblem(await s.get(b.id, '?view=configuration&tail=3'), 400, 'invalid_parameter')
    })

    it('merges every field in one revision; nulls clear', async () => {
      const b = await s.create({ kind: 'new', workspace: ws, name: 'before', model: 'm-1' })
      const c0 = await s.config(b.id)
      const seq0 = b.cursor.sequence
      // A catalog page's revision (one the daemon has not issued is refused: test/catalog/).
      const catalog = (await s.get(b.id, '/catalog?kind=skills')).json().catalog_revision
      const res = await s.patch(
        b.id,
        {
          name: 'after',
          provider_profile: 'prof',
          model: 'm-2',
          effort: 'high',
          preferences: { pinned: true, pin_order: 2, archived: true },
          selection: { skills: { a: true, b: false }, mcp: { srv: true } },
          catalog_revision: catalog,
        },
        c0.etag,
      )
      assert.equal(res.status, 200, res.text())
      const change = res.json()
      assert.deepEqual(sorted(Object.keys(change)), ['followers', 'resource'])
      assert.deepEqual(change.followers, [])
      assert.equal(res.headers.etag, change.resource.etag)
      const v = change.resource.value
      assert.equal(v.revision, c0.value.revision + 1, 'one revision for the whole change')
      assert.equal(v.name, 'after')
      assert.equal(v.provider_profile, 'prof')
      assert.equal(v.model, 'm-2')
      assert.equal(v.effort, 'high')
      assert.deepEqual(v.preferences, { pinned: true, pin_order: 2, archived: true, opens: 0 })
      assert.deepEqual(v.selection, {
        extensions: {},
        skills: { a: true, b: false },
        instructions: {},
        mcp: { srv: true },
      })
      assert.equal(v.catalog_revision, catalog)
      assert.deepEqual(await s.config(b.id), change.resource)

      const read = await s.read(b.id)
      assert.equal(read.cursor.sequence, seq0 + 1, 'one event for the whole change')
      assert.equal(read.composition.desired_revision, b.composition.desired_revision + 1)
      assert.equal(read.composition.needs_reload, true)
      assert.deepEqual(read.selection.overrides, v.selection)
      assert.equal(read.model, 'm-2')
      assert.equal(read.preferences.archived, true)

      // Nulls clear nullable fields and map entries; omitted fields keep their values.
      const cleared = (
        await s.change(b.id, {
          effort: null,
          catalog_revision: null,
          preferences: { pin_order: null },
          selection: { skills: { a: null }, mcp: { srv: null } },
        })
      ).resource.value
      assert.equal(cleared.effort, null)
      assert.equal(cleared.catalog_revision, null)
      assert.deepEqual(cleared.preferences, { pinned: true, pin_order: null, archived: true, opens: 0 })
      assert.deepEqual(cleared.selection, { extensions: {}, skills: { b: false }, instructions: {}, mcp: {} })
      assert.equal(cleared.name, 'after')
      assert.equal(cleared.model, 'm-2')

      // A name alone does not touch the composition.
      const desired = (await s.read(b.id)).composition.desired_revision
      await s.change(b.id, { name: 'renamed' })
      assert.equal((await s.read(b.id)).composition.desired_revision, desired)
    })

    it('requires view=configuration and a current If-Match', async () => {
      const b = await s.create({ kind: 'new', workspace: ws })
      const etag = b.configuration_resource.etag
      expectProblem(await s.patch(b.id, { name: 'x' }, undefined), 428, 'precondition_required')
      expectProblem(await s.patch(b.id, { name: 'x' }, '"stale"'), 412, 'precondition_failed')
      expectProblem(await s.patch(b.id, { name: 'x' }, etag, ''), 400, 'invalid_parameter')
      expectProblem(await s.patch(b.id, { name: 'x' }, etag, '?view=full'), 400, 'invalid_parameter')
      expectProblem(await s.patch(uuidv7(), { name: 'x' }, etag), 404, 'session_not_found')
      // A merge patch is application/merge-patch+json only: plain JSON (and anything else) is
      // 415 and changes nothing; a charset parameter is fine.
      for (const type of ['application/json', 'application/json-patch+json', 'text/plain']) {
        const other = await d.request({
          method: 'PATCH',
          path: `/sessions/${b.id}?view=configuration`,
          headers: { 'content-type': type, 'if-match': etag },
          body: JSON.stringify({ name: 'plain' }),
        })
        expectProblem(other, 415, 'unsupported_media_type')
      }
      assert.equal((await s.config(b.id)).value.name, b.name)
      const charset = await d.request({
        method: 'PATCH',
        path: `/sessions/${b.id}?view=configuration`,
        headers: { 'content-type': 'application/merge-patch+json; charset=utf-8', 'if-match': etag },
        body: JSON.stringify({ name: 'patched' }),
      })
      assert.equal(charset.status, 200, charset.text())
      assert.equal((await s.config(b.id)).value.name, 'patched')
    })

    it('refuses read-only, unknown and mistyped fields', async () => {
      const b = await s.create({ kind: 'new', workspace: ws })
      const etag = b.configuration_resource.etag
      const readOnly = [
        { id: b.id },
        { revision: 5 },
        { preferences: { opens: 3 } },
        { workspace_change: null },
        { name: 'ok', revision: 1 },
      ]
      for (const body of readOnly) expectProblem(await s.patch(b.id, body, etag), 400, 'read_only_field')
      expectProblem(await s.patch(b.id, { colour: 'red' }, etag), 400, 'unknown_field')
      expectProblem(await s.patch(b.id, { preferences: { starred: true } }, etag), 400, 'unknown_field')
      expectProblem(await s.patch(b.id, { selection: { tools: {} } }, etag), 400, 'unknown_field')
      expectProblem(
        await s.patch(b.id, { selection: { skills: { a: 'yes' } } }, etag),
        400,
        'invalid_request',
      )
      expectProblem(await s.patch(b.id, { name: null }, etag), 400, 'invalid_request')
      expectProblem(await s.patch(b.id, { family_revision: 1 }, etag), 400, 'read_only_field')
      // Nothing above committed.
      assert.equal((await s.config(b.id)).etag, etag)
      assert.equal(await s.seq(b.id), 1)
    })

    it('lets one of two changes with the same validator win', async () => {
      const b = await s.create({ kind: 'new', workspace: ws })
      const etag = b.configuration_resource.etag
      const results = await Promise.all([
        s.patch(b.id, { name: 'left' }, etag),
        s.patch(b.id, { name: 'right' }, etag),
      ])
      const statuses = results.map((r) => r.status).sort()
      assert.deepEqual(statuses, [200, 412])
      const winner = results.find((r) => r.status === 200)!
      expectProblem(results.find((r) => r.status === 412)!, 412, 'precondition_failed')
      assert.equal((await s.config(b.id)).value.name, winner.json().resource.value.name)
      assert.equal((await s.config(b.id)).value.revision, 2)
    })

    it('moves the workspace of a whole subtree as a standalone change', async () => {
      const root = await s.create({ kind: 'new', workspace: ws })
      const child = await s.create({ kind: 'child', parent_id: root.id })
      const grandchild = await s.create({ kind: 'child', parent_id: child.id })
      const sibling = await s.create({ kind: 'child', parent_id: root.id })
      const target = workspace()
      const c = await s.config(root.id)
      const fr = c.value.family_revision
      assert.equal(fr, 4)

      expectProblem(
        await s.patch(root.id, { workspace: target, name: 'x', family_revision: fr }, c.etag),
        400,
        'workspace_change_not_standalone',
      )
      expectProblem(await s.patch(root.id, { workspace: target }, c.etag), 400, 'family_revision_required')
      expectProblem(
        await s.patch(root.id, { workspace: target, family_revision: fr - 1 }, c.etag),
        412,
        'precondition_failed',
      )
      expectProblem(
        await s.patch(root.id, { workspace: 'rel', family_revision: fr }, c.etag),
        400,
        'workspace_not_absolute',
      )
      expectProblem(
        await s.patch(root.id, { workspace: join(target, 'nope'), family_revision: fr }, c.etag),
        400,
        'workspace_not_found',
      )
      expectProblem(
        await s.patch(root.id, { workspace: target, family_revision: fr }, undefined),
        428,
        'precondition_required',
      )

      // Moving the child moves the child and the grandchild, not the root nor the sibling.
      const cc = await s.config(child.id)
      const seqs = { child: await s.seq(child.id), grandchild: await s.seq(grandchild.id) }
      const res = await s.patch(child.id, { workspace: target, family_revision: fr }, cc.etag)
      assert.equal(res.status, 200, res.text())
      const change = res.json()
      assert.deepEqual(change.followers, [])
      assert.equal(change.resource.value.workspace, target)
      assert.equal(change.resource.value.family_revision, fr + 1)
      assert.equal((await s.read(child.id)).workspace, target)
      assert.equal((await s.read(grandchild.id)).workspace, target)
      assert.equal((await s.read(root.id)).workspace, ws)
      assert.equal((await s.read(sibling.id)).workspace, ws)
      assert.equal(await s.familyRevision(root.id), fr + 1)
      assert.equal(await s.seq(child.id), seqs.child + 1)
      assert.equal(await s.seq(grandchild.id), seqs.grandchild + 1)

      // The root's old validator is stale now (its family moved on); the family revision too.
      const rc = await s.config(root.id)
      assert.notEqual(rc.etag, c.etag)
      expectProblem(
        await s.patch(root.id, { workspace: target, family_revision: fr }, rc.etag),
        412,
        'precondition_failed',
      )
      const all = await s.patch(root.id, { workspace: target, family_revision: fr + 1 }, rc.etag)
      assert.equal(all.status, 200, all.text())
      for (const m of [root, child, grandchild, sibling]) assert.equal((await s.read(m.id)).workspace, target)
      assert.equal(await s.familyRevision(sibling.id), fr + 2)
    })
  })

  describe('PUT /sessions/{id}/visits/{visit_id}', () => {
    it('counts each visit id once; repeats and reads never count', async () => {
      const b = await s.create({ kind: 'new', workspace: ws })
      const visitId = uuidv7()
      const first = await s.visit(b.id, visitId)
      assert.equal(first.status, 200, first.text())
      const v = first.json()
      assert.deepEqual(sorted(Object.keys(v)), ['id', 'opens', 'session_id', 'visited_at'])
      assert.equal(v.id, visitId)
      assert.equal(v.session_id, b.id)
      assert.equal(v.opens, 1)
      assert.equal((await s.read(b.id)).preferences.opens, 1)
      assert.equal(await s.seq(b.id), 2)

      const repeat = await s.visit(b.id, visitId)
      assert.equal(repeat.status, 200)
      assert.equal(repeat.text(), first.text(), 'a repeat returns the identical visit')
      for (let i = 0; i < 3; i++) await s.get(b.id)
      await s.config(b.id)
      const read = await s.read(b.id)
      assert.equal(read.preferences.opens, 1)
      assert.equal(read.cursor.sequence, 2, 'neither the repeat nor the reads appended')

      // An empty body is the empty request too.
      const second = await d.request({ method: 'PUT', path: `/sessions/${b.id}/visits/${uuidv7()}` })
      assert.equal(second.status, 200, second.text())
      assert.equal(second.json().opens, 2)
      assert.equal((await s.config(b.id)).value.preferences.opens, 2)
    })

    it('checks ids and the session', async () => {
      const b = await s.create({ kind: 'new', workspace: ws })
      expectProblem(await s.visit(b.id, uuidv4()), 400, 'invalid_id')
      expectProblem(await s.visit(b.id, 'visit-1'), 400, 'invalid_id')
      expectProblem(await s.visit(uuidv7(), uuidv7()), 404, 'session_not_found')
      const bad = await d.request({
        method: 'PUT',
        path: `/sessions/${b.id}/visits/${uuidv7()}`,
        headers: { 'content-type': 'application/json' },
        body: '{"x":1}',
      })
      expectProblem(bad, 400, 'unknown_field')
      assert.equal((await s.read(b.id)).preferences.opens, 0)
    })
  })

  describe('DELETE /sessions/{id}', () => {
    it('deletes a leaf; refuses one with children', async () => {
      const root = await s.create({ kind: 'new', workspace: ws })
      const child = await s.create({ kind: 'child', parent_id: root.id })
      const rc = await s.config(root.id)
      expectProblem(await s.remove(root.id, undefined), 428, 'precondition_required')
      expectProblem(await s.remove(root.id, '"stale"'), 412, 'precondition_failed')
      expectProblem(await s.remove(root.id, rc.etag), 409, 'session_has_children')
      expectProblem(
        await d.request({ method: 'DELETE', path: `/sessions/${root.id}`, headers: { 'if-match': rc.etag } }),
        400,
        'invalid_parameter',
      )

      const parentSeq = await s.seq(root.id)
      const res = await s.remove(child.id, (await s.config(child.id)).etag)
      assert.equal(res.status, 200, res.text())
      assert.deepEqual(res.json(), {
        scope: 'leaf',
        outcome: 'deleted',
        members: [{ id: child.id, depth: 1, outcome: 'deleted', code: null, detail: null }],
        family_revision: rc.value.family_revision + 1,
      })
      expectProblem(await s.get(child.id), 410, 'session_deleted')
      expectProblem(await s.remove(child.id, '*'), 410, 'session_deleted')
      assert.equal(await s.familyRevision(root.id), rc.value.family_revision + 1)
      assert.equal(await s.seq(root.id), parentSeq + 1, 'the parent logs the removal')

      // Now a leaf itself, the root goes, and its family with it.
      const root2 = await s.config(root.id)
      const del = await s.remove(root.id, root2.etag)
      assert.equal(del.status, 200, del.text())
      assert.deepEqual(del.json().members, [
        { id: root.id, depth: 0, outcome: 'deleted', code: null, detail: null },
      ])
      assert.equal(del.json().family_revision, null)
      expectProblem(await s.get(root.id), 410, 'session_deleted')
      expectProblem(await d.request({ path: `/sessions?family_id=${root.id}` }), 404, 'family_not_found')
      expectProblem(await s.put(uuidv7(), { kind: 'child', parent_id: root.id }), 409, 'parent_unavailable')
      expectProblem(await s.put(uuidv7(), { kind: 'forked', source_id: root.id }), 409, 'source_unavailable')
    })

    it('deletes a subtree deepest first, reporting every member', async () => {
      const root = await s.create({ kind: 'new', workspace: ws })
      const a = await s.create({ kind: 'child', parent_id: root.id })
      const a1 = await s.create({ kind: 'child', parent_id: a.id })
      const a2 = await s.create({ kind: 'child', parent_id: a.id })
      const a1x = await s.create({ kind: 'child', parent_id: a1.id })
      const b = await s.create({ kind: 'child', parent_id: root.id })
      const ac = await s.config(a.id)
      const fr = ac.value.family_revision
      assert.equal(fr, 6)

      expectProblem(await s.remove(a.id, ac.etag, '&scope=subtree'), 428, 'precondition_required')
      expectProblem(
        await s.remove(a.id, ac.etag, `&scope=subtree&family_revision=${fr - 1}`),
        412,
        'precondition_failed',
      )
      expectProblem(
        await s.remove(a.id, '"stale"', `&scope=subtree&family_revision=${fr}`),
        412,
        'precondition_failed',
      )
      assert.equal((await s.read(a1x.id)).id, a1x.id, 'refusals deleted nothing')

      const res = await s.remove(a.id, ac.etag, `&scope=subtree&family_revision=${fr}`)
      assert.equal(res.status, 200, res.text())
      const out = res.json()
      assert.equal(out.scope, 'subtree')
      assert.equal(out.outcome, 'deleted')
      assert.equal(out.family_revision, fr + 4, 'each member removal moves the family')
      const depths = out.members.map((m: any) => m.depth)
      assert.deepEqual(
        depths,
        [...depths].sort((x, y) => y - x),
        'deepest first',
      )
      assert.deepEqual(
        sorted(out.members.map((m: any) => `${m.id}@${m.depth}`)),
        sorted([`${a.id}@1`, `${a1.id}@2`, `${a2.id}@2`, `${a1x.id}@3`]),
      )
      for (const m of out.members) {
        assert.equal(m.outcome, 'deleted')
        assert.equal(m.code, null)
        assert.equal(m.detail, null)
      }
      for (const gone of [a, a1, a2, a1x]) expectProblem(await s.get(gone.id), 410, 'session_deleted')
      // The rest of the family remains.
      const family = await d.request({ path: `/sessions?family_id=${root.id}` })
      assert.deepEqual(sorted(family.json().items.map((i: any) => i.id)), sorted([root.id, b.id]))
      assert.equal(await s.familyRevision(root.id), fr + 4)
      // And takes new members again.
      await s.create({ kind: 'child', parent_id: b.id })

      // A root's subtree takes the whole family.
      const rc = await s.config(root.id)
      const whole = await s.remove(
        root.id,
        rc.etag,
        `&scope=subtree&family_revision=${rc.value.family_revision}`,
      )
      assert.equal(whole.status, 200, whole.text())
      assert.equal(whole.json().members.length, 3)
      assert.equal(whole.json().members.at(-1).id, root.id)
      assert.equal(whole.json().family_revision, null)
      expectProblem(await d.request({ path: `/sessions?family_id=${root.id}` }), 404, 'family_not_found')
      expectProblem(await s.get(b.id), 410, 'session_deleted')
    })
  })

  describe('family gate', () => {
    it('refuses new children and a second subtree deletion while one runs', async () => {
      const root = await s.create({ kind: 'new', workspace: ws })
      const child = await s.create({ kind: 'child', parent_id: root.id })
      // A running subtree deletion is a gated family; set the gate as one would.
      const db = new Database(join(d.home, 'state.db'), { timeout: 5000 })
      const gate = (value: string | null) =>
        db.prepare('UPDATE families SET deleting = ? WHERE root_id = ?').run(value, root.id)
      try {
        gate(child.id)
        expectProblem(await s.put(uuidv7(), { kind: 'child', parent_id: root.id }), 409, 'family_deleting')
        expectProblem(await s.put(uuidv7(), { kind: 'child', parent_id: child.id }), 409, 'family_deleting')
        const rc = await s.config(root.id)
        expectProblem(
          await s.remove(root.id, rc.etag, `&scope=subtree&family_revision=${rc.value.family_revision}`),
          409,
          'family_deleting',
        )
        // Forks are new families: not gated.
        await s.create({ kind: 'forked', source_id: child.id })
        gate(null)
      } finally {
        db.close()
      }
      const grandchild = await s.create({ kind: 'child', parent_id: child.id })
      assert.equal(grandchild.depth, 2)
    })
  })

  describe('event log', () => {
    it('appends exactly one event per create, change and counted visit', async () => {
      const root = await s.create({ kind: 'new', workspace: ws })
      assert.equal(root.cursor.sequence, 1)
      const generation = root.cursor.generation
      await s.change(root.id, { name: 'one' })
      assert.equal(await s.seq(root.id), 2)
      await s.change(root.id, {
        model: 'm',
        preferences: { pinned: true },
        selection: { skills: { s: true } },
      })
      assert.equal(await s.seq(root.id), 3)
      const visit = uuidv7()
      assert.equal((await s.visit(root.id, visit)).status, 200)
      assert.equal(await s.seq(root.id), 4)
      assert.equal((await s.visit(root.id, visit)).status, 200)
      assert.equal(await s.seq(root.id), 4)
      const child = await s.create({ kind: 'child', parent_id: root.id })
      assert.equal(child.cursor.sequence, 1)
      assert.equal(await s.seq(root.id), 5, 'session.child_added on the parent')
      const read = await s.read(root.id)
      assert.equal(read.cursor.generation, generation)
      // The session validator follows the log.
      const before = (await s.get(root.id)).headers.etag
      await s.change(root.id, { name: 'two' })
      assert.notEqual((await s.get(root.id)).headers.etag, before)
    })
  })
})
