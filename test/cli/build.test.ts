// Rebuilding dist/ while `hearth` starts from it (npm test, npm link): in a checkout of its
// own (scripts, bin, src and package.json copied, node_modules linked), a build replaces an
// earlier one while commands keep starting; none may fail, no file of dist/ is rewritten in
// place, and everything the earlier hearth.mjs imports is still there afterwards.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

function run(cwd: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  p.stdout.on('data', (c) => {
    stdout += c
  })
  p.stderr.on('data', (c) => {
    stderr += c
  })
  return new Promise((res) => p.on('close', (code) => res({ code, stdout, stderr })))
}

/** The files a module of dist/ imports (statically or not), and theirs, by name. */
function importGraph(dir: string, entry: string, files: Map<string, string>): Set<string> {
  const seen = new Set<string>()
  const visit = (name: string) => {
    if (seen.has(name)) return
    seen.add(name)
    for (const m of (files.get(name) ?? readFileSync(join(dir, name), 'utf8')).matchAll(
      /["']\.\/([\w.-]+\.mjs)["']/g,
    ))
      visit(m[1])
  }
  visit(entry)
  return seen
}

describe('a build while hearth starts from dist/', () => {
  it('replaces dist/ file by file: every command started meanwhile works, and the old build stays whole', {
    timeout: 600_000,
  }, async () => {
    const root = mkdtempSync(join(tmpdir(), 'hearth-build-'))
    for (const part of ['scripts', 'bin', 'src', 'package.json'])
      cpSync(join(ROOT, part), join(root, part), { recursive: true })
    symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'))
    const first = await run(root, ['scripts/build.mjs'])
    assert.equal(first.code, 0, first.stderr)
    const dist = join(root, 'dist')
    // The bundles, and the web client's files in dist/web/ (named web/…).
    const files = [
      ...readdirSync(dist, { withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => e.name),
      ...readdirSync(join(dist, 'web')).map((n) => `web/${n}`),
    ]
    const before = new Map(files.map((n) => [n, statSync(join(dist, n))]))
    const oldFiles = new Map([...before.keys()].map((n) => [n, readFileSync(join(dist, n), 'utf8')]))
    const oldGraph = importGraph(dist, 'hearth.mjs', oldFiles)

    // The next build differs in a module every command loads.
    const info = join(root, 'src', 'build-info.ts')
    writeFileSync(info, readFileSync(info, 'utf8').replace('pkg.version', "pkg.version + '-next'"))
    const building = run(root, ['scripts/build.mjs'])
    let built = false
    void building.then(() => {
      built = true
    })
    const runs: Promise<{ code: number | null; stdout: string; stderr: string; args: string[] }>[] = []
    // Two commands at a time until the build ends: --version (the entry and its chunks) and a
    // command whose chunk is imported later (sessions --help).
    while (!built) {
      const batch = [['--version'], ['sessions', '--help']].map((args) =>
        run(root, ['bin/hearth.mjs', ...args]).then((r) => ({ ...r, args })),
      )
      runs.push(...batch)
      await Promise.all(batch)
    }
    const second = await building
    assert.equal(second.code, 0, second.stderr)
    const results = await Promise.all(runs)
    assert.ok(results.length >= 2)
    for (const r of results) {
      assert.equal(r.code, 0, `hearth ${r.args.join(' ')}: ${r.stderr}`)
      assert.equal(r.stderr, '', `hearth ${r.args.join(' ')}`)
    }
    const after = await run(root, ['bin/hearth.mjs', '--version'])
    assert.match(after.stdout, /^hearth 0\.1\.0-next\+/)

    // No file was rewritten in place: one with the same name is the same file or a new one.
    for (const [name, old] of before) {
      if (!existsSync(join(dist, name))) continue
      const now = statSync(join(dist, name))
      if (now.ino === old.ino) assert.equal(now.mtimeMs, old.mtimeMs, `${name} was rewritten in place`)
    }
    // A process that read the old hearth.mjs finds every chunk it imports, unchanged (the
    // entries, hearth.mjs, daemon.mjs and the kernel's, are the files a build replaces).
    const chunks = [...oldGraph].filter((name) => /-[A-Z0-9]{8}\.mjs$/.test(name))
    assert.ok(chunks.length > 3, 'hearth.mjs imports chunks')
    for (const name of chunks)
      assert.ok(readFileSync(join(dist, name), 'utf8') === oldFiles.get(name), `${name} of the old build`)
    assert.deepEqual(
      readdirSync(root).filter((n) => n.startsWith('dist.')),
      [],
      'no build folder or lock is left beside dist/',
    )
  })
})
