// GET /workspaces against a real daemon and real directories: recent workspaces from the
// sessions that use them, a directory's entries in pages (directories first), links, the
// preview (branch from .git/HEAD, README, AGENTS.md), and refusals.
import assert from 'node:assert/strict'
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { startDaemon, type TestDaemon } from '../helpers/daemon.ts'
import { createSession } from '../streams/sse-client.ts'

const at = (location: string, extra = '') => `/workspaces?location=${encodeURIComponent(location)}${extra}`

describe('GET /workspaces', () => {
  let d: TestDaemon
  let root: string
  before(async () => {
    d = await startDaemon()
    root = join(d.home, 'tree')
    mkdirSync(join(root, 'beta', '.git'), { recursive: true })
    writeFileSync(join(root, 'beta', '.git', 'HEAD'), 'ref: refs/heads/feature/x\n')
    mkdirSync(join(root, 'alpha'))
    mkdirSync(join(root, '.hidden'))
    writeFileSync(join(root, 'README.md'), `# Tree\n${'é'.repeat(5000)}`)
    writeFileSync(join(root, 'AGENTS.md'), 'be brief')
    writeFileSync(join(root, 'a.txt'), 'x')
    symlinkSync(join(root, 'alpha'), join(root, 'zlink'))
    symlinkSync(join(root, 'nowhere'), join(root, 'dangling'))
  })
  after(async () => {
    await d.stop()
  })

  it('lists a directory: directories first, then by name, with kinds, links and repositories', async () => {
    const r = await d.request({ path: at(root) })
    assert.equal(r.status, 200, r.text())
    const body = r.json()
    assert.deepEqual(body.location, { path: root, parent: join(root, '..').replace(/\/$/, '') })
    assert.deepEqual(
      body.items.map((e: { name: string; kind: string }) => `${e.name}:${e.kind}`),
      [
        '.hidden:directory',
        'alpha:directory',
        'beta:directory',
        'zlink:directory',
        'AGENTS.md:file',
        'README.md:file',
        'a.txt:file',
        'dangling:missing',
      ],
    )
    const byName = Object.fromEntries(body.items.map((e: { name: string }) => [e.name, e]))
    assert.equal(byName.beta.repository, true)
    assert.equal(byName.alpha.repository, false)
    assert.equal(byName.zlink.link, true)
    assert.equal(byName['.hidden'].hidden, true)
    assert.equal(byName.alpha.path, join(root, 'alpha'))
    assert.equal(body.preview, null)
    assert.equal(body.truncated, false)
    assert.equal(body.next, null)
  })

  it('pages the entries with a continuation bound to the location', async () => {
    const first = (await d.request({ path: at(root, '&limit=3') })).json()
    assert.deepEqual(
      first.items.map((e: { name: string }) => e.name),
      ['.hidden', 'alpha', 'beta'],
    )
    const second = (await d.request({ path: at(root, `&limit=3&next=${first.next}`) })).json()
    assert.deepEqual(
      second.items.map((e: { name: string }) => e.name),
      ['zlink', 'AGENTS.md', 'README.md'],
    )
    const third = (await d.request({ path: at(root, `&limit=3&next=${second.next}`) })).json()
    assert.deepEqual(
      third.items.map((e: { name: string }) => e.name),
      ['a.txt', 'dangling'],
    )
    assert.equal(third.next, null)
    const elsewhere = await d.request({ path: at(join(root, 'alpha'), `&next=${first.next}`) })
    assert.equal(elsewhere.status, 400)
    assert.equal(elsewhere.json().code, 'invalid_continuation')
  })

  it('previews a directory and a repository branch', async () => {
    const body = (await d.request({ path: at(root, '&include=preview') })).json()
    assert.equal(body.preview.agents_md, true)
    assert.equal(body.preview.directories, 3)
    assert.equal(body.preview.files, 3)
    assert.equal(body.preview.repository, null)
    assert.equal(body.preview.readme.name, 'README.md')
    assert.equal(body.preview.readme.text.length, 4096)
    assert.ok(body.preview.readme.text.startsWith('# Tree\né'))
    assert.equal(body.preview.readme.truncated, true)
    const repo = (await d.request({ path: at(join(root, 'beta'), '&include=preview') })).json()
    assert.deepEqual(repo.preview.repository, { branch: 'feature/x', head: null })
    assert.equal(repo.preview.readme, null)
  })

  it('refuses what is not a readable absolute directory', async () => {
    const cases: [string, number, string][] = [
      ['/workspaces?location=relative', 400, 'workspace_not_absolute'],
      [at(join(root, 'missing')), 404, 'location_not_found'],
      [at(join(root, 'a.txt')), 409, 'location_not_directory'],
      ['/workspaces?include=preview', 400, 'invalid_parameter'],
      ['/workspaces?include=everything', 400, 'invalid_parameter'],
      ['/workspaces?limit=0', 400, 'invalid_parameter'],
      ['/workspaces?host=x', 400, 'unknown_parameter'],
      ['/workspaces?next=forged.token', 400, 'invalid_continuation'],
    ]
    for (const [path, status, code] of cases) {
      const r = await d.request({ path })
      assert.equal(r.status, status, `${path}: ${r.text()}`)
      assert.equal(r.json().code, code, path)
    }
    if (process.getuid?.() !== 0) {
      const locked = join(root, 'locked')
      mkdirSync(locked, { mode: 0o000 })
      const r = await d.request({ path: at(locked) })
      assert.equal(r.json().code, 'location_unreadable')
    }
  })

  it('lists the workspaces sessions use, most recently active first, gone ones as missing', async () => {
    const older = join(root, 'alpha')
    const newer = join(root, 'beta')
    const gone = join(d.home, 'gone')
    mkdirSync(gone)
    // Activity is the creation time here: one after another, a few ms apart.
    for (const workspace of [older, gone, newer, newer]) {
      await createSession(d, { kind: 'new', workspace })
      await new Promise((r) => setTimeout(r, 5))
    }
    rmSync(gone, { recursive: true })
    const body = (await d.request({ path: '/workspaces' })).json()
    assert.equal(body.location, null)
    const shown = body.items.map((e: { path: string; kind: string; sessions: number }) => [
      e.path,
      e.kind,
      e.sessions,
    ])
    assert.deepEqual(shown, [
      [newer, 'directory', 2],
      [gone, 'missing', 1],
      [older, 'directory', 1],
    ])
    assert.equal(body.items[0].repository, true)
    assert.match(body.items[0].last_activity_at, /^\d{4}-\d\d-\d\dT/)
    const first = (await d.request({ path: '/workspaces?limit=1' })).json()
    assert.equal(first.items[0].path, newer)
    const second = (await d.request({ path: `/workspaces?limit=2&next=${first.next}` })).json()
    assert.deepEqual(
      second.items.map((e: { path: string }) => e.path),
      [gone, older],
    )
    assert.equal(second.next, null)
  })
})
