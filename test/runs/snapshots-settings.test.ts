// Workspace snapshots of runs, continued: a git workspace whose index, stash, HEAD and
// ignored output stay untouched; the snapshot settings (validation, keep_runs retention,
// max_file_bytes, snapshots off), an allowed root, bounded diffs, session deletion and the
// storage report.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { answer, callTools } from '../fakes/tool-script.ts'
import { deleteLeaf } from '../streams/sse-client.ts'
import { type AgentSetup, newSession, runMessage, startAgent } from '../tools/agent-helpers.ts'
import { changesOf, getJson, putRestore, runAndRecord, waitFor } from './snapshot-helpers.ts'

const read = (ws: string, p: string) => readFileSync(join(ws, p), 'utf8')

describe('snapshots in a git workspace', () => {
  let s: AgentSetup
  const git = (ws: string, ...args: string[]) =>
    execFileSync('git', ['-C', ws, ...args], {
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@e',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@e',
      },
    })
  before(async () => {
    s = await startAgent({ tools: { approval_policy: 'auto' } })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })

  it("the person's staged and unstaged changes, stash and HEAD are untouched; ignored output is neither captured nor restored", async () => {
    const ws = s.workspace
    git(ws, 'init', '-q')
    writeFileSync(join(ws, '.gitignore'), 'build/\n')
    writeFileSync(join(ws, 'staged.txt'), 'v1\n')
    writeFileSync(join(ws, 'unstaged.txt'), 'v1\n')
    git(ws, 'add', '-A')
    git(ws, 'commit', '-qm', 'first')
    writeFileSync(join(ws, 'staged.txt'), 'v2 staged\n')
    git(ws, 'add', 'staged.txt')
    writeFileSync(join(ws, 'unstaged.txt'), 'v2 unstaged\n')
    writeFileSync(join(ws, 'stashed.txt'), 'x\n')
    git(ws, 'stash', 'push', '-q', '-u', '-m', 'mine', '--', 'stashed.txt')
    mkdirSync(join(ws, 'build'))
    writeFileSync(join(ws, 'build', 'out.txt'), 'old build\n')
    const state = () => ({
      status: git(ws, 'status', '--porcelain'),
      cached: git(ws, 'diff', '--cached'),
      head: git(ws, 'rev-parse', 'HEAD'),
      stash: git(ws, 'stash', 'list'),
      refs: git(ws, 'for-each-ref'),
    })
    const before = state()
    const sid = await newSession(s)
    s.upstream.enqueue(
      callTools({
        name: 'shell',
        arguments: { command: 'echo agent > agent.txt && echo new build > build/out.txt' },
      }),
      answer('ok'),
    )
    const runId = await runAndRecord(s, sid, 'build')
    const changes = await changesOf(s.d, sid, runId)
    assert.deepEqual(
      changes.items.map((c: any) => c.path),
      ['agent.txt'],
      'the ignored build output is not captured',
    )
    const r = await putRestore(s.d, sid, {})
    assert.equal(r.status, 201, r.text())
    assert.deepEqual(state(), before)
    assert.equal(read(ws, 'build/out.txt'), 'new build\n', 'ignored output is never restored')
    assert.equal(read(ws, 'staged.txt'), 'v2 staged\n')
    assert.equal(read(ws, 'unstaged.txt'), 'v2 unstaged\n')
  })
})

describe('snapshot settings, retention, deletion and storage', () => {
  let s: AgentSetup
  before(async () => {
    s = await startAgent({ tools: { approval_policy: 'auto', snapshots: { keep_runs: 2 } } })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })

  const patchTools = async (body: unknown) => {
    const g = await s.d.request({ path: '/settings?group=tools' })
    return s.d.request({
      method: 'PATCH',
      path: '/settings?group=tools',
      headers: { 'content-type': 'application/merge-patch+json', 'if-match': String(g.headers.etag) },
      body: JSON.stringify(body),
    })
  }

  it('validates the snapshot settings and reads their defaults', async () => {
    const bad = await patchTools({ snapshots: { keep_runs: -1 } })
    assert.equal(bad.status, 400, bad.text())
    const unknown = await patchTools({ snapshots: { everything: true } })
    assert.equal(unknown.status, 400)
    const g = await getJson(s.d, '/settings?group=tools')
    assert.deepEqual(g.settings.snapshots, {
      enabled: true,
      max_file_bytes: 10 * 1024 * 1024,
      keep_runs: 2,
      max_total_bytes: 2 * 1024 * 1024 * 1024,
    })
  })

  it('keep_runs 2: the oldest run’s changes read none; deleting the session frees its snapshots', async () => {
    const sid = await newSession(s)
    const runs: string[] = []
    for (const n of [1, 2, 3]) {
      s.upstream.enqueue(
        callTools({ name: 'write', arguments: { path: `k${n}.txt`, content: `${n}\n` } }),
        answer('ok'),
      )
      runs.push(await runAndRecord(s, sid, `write ${n}`))
    }
    await waitFor('retention', async () => (await changesOf(s.d, sid, runs[0])).state === 'none')
    assert.equal((await changesOf(s.d, sid, runs[1])).state, 'recorded')
    assert.equal((await changesOf(s.d, sid, runs[2])).state, 'recorded')
    const report = await getJson(s.d, '/storage')
    assert.equal(report.snapshots.count, 4)
    assert.ok(report.snapshots.bytes > 0)
    assert.equal(report.totals.snapshot_bytes, report.snapshots.bytes)
    await deleteLeaf(s.d, sid)
    await waitFor('the snapshots to go', async () => (await getJson(s.d, '/storage')).snapshots.count === 0)
  })

  it('a large diff is cut at 256 KiB; a file over max_file_bytes is skipped, neither shown nor restored', async () => {
    assert.equal((await patchTools({ snapshots: { max_file_bytes: 300_000 } })).status, 200)
    try {
      const sid = await newSession(s)
      const line = `${'x'.repeat(99)}\n`
      s.upstream.enqueue(
        callTools(
          { name: 'write', arguments: { path: 'long.txt', content: line.repeat(2800) } },
          { name: 'shell', arguments: { command: 'head -c 400000 /dev/zero | tr "\\0" y > huge.txt' } },
        ),
        answer('ok'),
      )
      const runId = await runAndRecord(s, sid, 'write big files')
      const changes = await changesOf(s.d, sid, runId)
      assert.deepEqual(
        changes.items.map((c: any) => c.path),
        ['long.txt'],
      )
      assert.deepEqual(changes.skipped, [{ root: s.workspace, path: 'huge.txt', reason: 'too_large' }])
      const diff = await getJson(s.d, `/sessions/${sid}/runs/${runId}/changes/diff?path=long.txt`)
      assert.equal(diff.truncated, true)
      assert.ok(Buffer.byteLength(diff.text) <= 256 * 1024)
      const r = await putRestore(s.d, sid, { run_id: runId })
      assert.equal(r.status, 201, r.text())
      assert.equal(existsSync(join(s.workspace, 'long.txt')), false)
      assert.equal(statSync(join(s.workspace, 'huge.txt')).size, 400_000, 'a skipped file is never restored')
    } finally {
      await patchTools({ snapshots: { max_file_bytes: null } })
    }
  })

  it('an allowed root is captured as its own root, and restored', async () => {
    const extra = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-extra-')))
    writeFileSync(join(extra, 'e.txt'), 'extra before\n')
    assert.equal((await patchTools({ allowed_roots: [extra] })).status, 200)
    try {
      const sid = await newSession(s)
      s.upstream.enqueue(
        callTools({ name: 'write', arguments: { path: join(extra, 'e.txt'), content: 'extra after\n' } }),
        answer('ok'),
      )
      const runId = await runAndRecord(s, sid, 'write outside the workspace')
      const changes = await changesOf(s.d, sid, runId)
      assert.deepEqual(
        changes.items.map((c: any) => [c.root, c.path, c.status]),
        [[extra, 'e.txt', 'modified']],
      )
      const diff = await getJson(
        s.d,
        `/sessions/${sid}/runs/${runId}/changes/diff?root=${encodeURIComponent(extra)}&path=e.txt`,
      )
      assert.match(diff.text, /^\+extra after$/m)
      const r = await putRestore(s.d, sid, { files: [{ root: extra, path: 'e.txt' }] })
      assert.equal(r.status, 201, r.text())
      assert.equal(readFileSync(join(extra, 'e.txt'), 'utf8'), 'extra before\n')
    } finally {
      await patchTools({ allowed_roots: null })
    }
  })

  it('past max_total_bytes the oldest snapshots go, and git frees their objects', async () => {
    const MiB = 1024 * 1024
    assert.equal((await patchTools({ snapshots: { max_total_bytes: MiB } })).status, 200)
    try {
      const sid = await newSession(s)
      s.upstream.enqueue(
        callTools({ name: 'shell', arguments: { command: 'head -c 3000000 /dev/urandom > noise.bin' } }),
        answer('ok'),
      )
      const runId = await runAndRecord(s, sid, 'make noise')
      await waitFor(
        'the oldest snapshots to go',
        async () => (await changesOf(s.d, sid, runId)).state === 'none',
      )
      // The store keeps what the files hold now (its index); once the noise is gone from the
      // workspace too, nothing holds its objects.
      s.upstream.enqueue(callTools({ name: 'shell', arguments: { command: 'rm noise.bin' } }), answer('ok'))
      await runAndRecord(s, sid, 'remove the noise')
      const report = await waitFor('the store to shrink', async () => {
        const r = await getJson(s.d, '/storage')
        return r.snapshots.bytes < MiB ? r : undefined
      })
      assert.equal(report.snapshots.count, 0)
    } finally {
      await patchTools({ snapshots: { max_total_bytes: null } })
    }
  })

  it('snapshots off: a run that writes records none, and a restore is refused', async () => {
    assert.equal((await patchTools({ snapshots: { enabled: false } })).status, 200)
    try {
      const sid = await newSession(s)
      s.upstream.enqueue(
        callTools({ name: 'write', arguments: { path: 'off.txt', content: 'x\n' } }),
        answer('ok'),
      )
      const done = await runMessage(s, sid, 'write')
      assert.equal((await changesOf(s.d, sid, done.latest_answer.run_id)).state, 'none')
      const r = await putRestore(s.d, sid, {})
      assert.equal(r.status, 409)
      assert.equal(r.json().code, 'snapshots_disabled')
    } finally {
      await patchTools({ snapshots: { enabled: null } })
    }
  })
})
