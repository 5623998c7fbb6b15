// The import rules of docs/architecture.md ("Layers"), checked against every import of every
// file under src/. esbuild resolves the imports (static and dynamic import(), as the bundle
// sees them; `import type` is erased before bundling and so not read) and each file belongs
// to a module: its top-level folder (src/runs/…: `runs`), or a top-level file on its own
// (src/main.ts: `main`). The table in the doc is the rule: this test reads it from there.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { build, type Metafile } from 'esbuild'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const DOC = 'docs/architecture.md'

/** Packages only some modules may import (every other package is free). */
const PACKAGE_RULES: Record<string, string[]> = {
  hono: ['http'],
  'better-sqlite3': ['store', 'daemon'],
  '@earendil-works/pi-tui': ['tui'],
  preact: ['web'],
  uplot: ['web'],
}

/** The modules that are clients of the daemon: they reach it over HTTP only. */
const CLIENT_SIDE = ['client', 'command-line', 'tui', 'acp', 'cli', 'web']

interface Import {
  file: string
  path: string
  kind: string
  external: boolean
}

/** One entry of a row: a module, perhaps allowed from one file only. */
interface Allowed {
  module: string
  onlyFrom?: string
}

function sourceFiles(): string[] {
  return readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ts|js|mjs)$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => `src/${f.split('\\').join('/')}`)
}

async function importsOfSrc(): Promise<Import[]> {
  const { metafile } = await build({
    absWorkingDir: ROOT,
    entryPoints: sourceFiles(),
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outdir: 'layers-out',
    logLevel: 'silent',
  })
  const inputs = Object.entries((metafile as Metafile).inputs).filter(([file]) => file.startsWith('src/'))
  assert.deepEqual(
    sourceFiles().filter((f) => !(metafile as Metafile).inputs[f]),
    [],
    'esbuild read every file under src/',
  )
  return inputs.flatMap(([file, input]) =>
    input.imports.map((i) => ({ file, path: i.path, kind: i.kind, external: i.external ?? false })),
  )
}

/** src/runs/engine.ts → runs; src/main.ts → main. */
function moduleOf(file: string): string {
  const [, first, ...rest] = file.split('/')
  return rest.length === 0 ? first.replace(/\.[cm]?[jt]s$/, '') : first
}

/** The package an external import names: `typebox/compile` → typebox, `@a/b/c` → @a/b. */
function packageOf(path: string): string {
  const parts = path.split('/')
  return parts.slice(0, path.startsWith('@') ? 2 : 1).join('/')
}

/** The table of docs/architecture.md: module → what it may import (`leaves` expanded). */
function readTable(): Map<string, Allowed[]> {
  const doc = readFileSync(join(ROOT, DOC), 'utf8')
  const section = doc.slice(doc.indexOf('\n## Layers'), doc.indexOf('\n## ', doc.indexOf('\n## Layers') + 1))
  const leavesLine = section.split('\n').find((l) => l.startsWith('The shared leaves'))
  assert.ok(leavesLine, `${DOC}: the Layers section names the shared leaves`)
  const leaves = [...leavesLine.slice(leavesLine.indexOf(':')).matchAll(/`([\w-]+)`/g)].map((m) => m[1])
  const table = new Map<string, Allowed[]>()
  for (const line of section.split('\n')) {
    const row = /^\| `([\w-]+)` \| (.*) \|$/.exec(line)
    if (!row) continue
    const entries = row[2] === '—' ? [] : row[2].split(', ')
    table.set(
      row[1],
      entries.flatMap((e): Allowed[] => {
        if (e === 'leaves') return leaves.map((module) => ({ module }))
        const m = /^`([\w-]+)`(?: \(from `([\w./-]+)`\))?$/.exec(e)
        assert.ok(m, `${DOC}: row ${row[1]}: cannot read "${e}"`)
        return [{ module: m[1], onlyFrom: m[2] && `src/${m[2]}` }]
      }),
    )
  }
  assert.ok(table.size > 10, `${DOC}: the Layers table has a row per module`)
  return table
}

const mayImport = (table: Map<string, Allowed[]>, from: string, to: string) =>
  (table.get(from) ?? []).some((a) => a.module === to)

function rowText(table: Map<string, Allowed[]>, module: string): string {
  const row = table.get(module) ?? []
  const names = row.map((a) => (a.onlyFrom ? `${a.module} (from ${a.onlyFrom})` : a.module))
  return names.length ? names.join(', ') : 'nothing'
}

/** The strongly connected components (more than one module) of the module graph. */
function cycles(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const found: string[][] = []
  const visit = (v: string) => {
    index.set(v, index.size)
    low.set(v, index.get(v)!)
    stack.push(v)
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) !== index.get(v)) return
    const component: string[] = []
    let w: string
    do {
      w = stack.pop()!
      component.push(w)
    } while (w !== v)
    if (component.length > 1) found.push(component.sort())
  }
  for (const v of edges.keys()) if (!index.has(v)) visit(v)
  return found
}

describe('layers: the import rules of docs/architecture.md', () => {
  let imports: Import[]
  let table: Map<string, Allowed[]>
  const internal = () => imports.filter((i) => !i.external && i.path.startsWith('src/'))

  before(async () => {
    imports = await importsOfSrc()
    table = readTable()
  })

  it('reads imports of every kind, dynamic import() included', () => {
    assert.ok(internal().some((i) => i.kind === 'import-statement'))
    assert.ok(internal().some((i) => i.kind === 'dynamic-import'))
  })

  it('has a row for every module of src/, and none for a module that is gone', () => {
    const modules = new Set(sourceFiles().map(moduleOf))
    const missing = [...modules].filter((m) => !table.has(m))
    assert.deepEqual(missing, [], `modules without a row in the ${DOC} Layers table: add one`)
    const named = [...table].flatMap(([m, row]) => [m, ...row.map((a) => a.module)])
    const gone = [...new Set(named)].filter((m) => !modules.has(m))
    assert.deepEqual(gone, [], `${DOC} names modules that src/ does not have`)
  })

  it('every import of one module by another is one the table allows', () => {
    const breaks: string[] = []
    for (const i of internal()) {
      const from = moduleOf(i.file)
      const to = moduleOf(i.path)
      if (from === to) continue
      const allowed = (table.get(from) ?? []).find((a) => a.module === to)
      if (allowed && (!allowed.onlyFrom || allowed.onlyFrom === i.file)) continue
      const rule = allowed
        ? `${from} may import ${to} from ${allowed.onlyFrom} only`
        : `${from} may import ${rowText(table, from)}`
      breaks.push(`${i.file} imports ${i.path} (${i.kind}): ${rule} (${DOC}, Layers)`)
    }
    assert.deepEqual(breaks, [])
  })

  it('packages that belong to one layer are imported by that layer only', () => {
    const breaks = imports
      .filter((i) => i.external && PACKAGE_RULES[packageOf(i.path)])
      .filter((i) => !PACKAGE_RULES[packageOf(i.path)].includes(moduleOf(i.file)))
      .map((i) => `${i.file} imports ${i.path}: only ${PACKAGE_RULES[packageOf(i.path)].join(', ')} may`)
    assert.deepEqual(breaks, [])
    const ofSchemas = imports.filter((i) => i.external && moduleOf(i.file) === 'schemas')
    assert.deepEqual([...new Set(ofSchemas.map((i) => packageOf(i.path)))], ['typebox'])
  })

  it('the table keeps the architecture: domain below HTTP, clients over HTTP only', () => {
    const importers = (to: string) => [...table].filter(([, row]) => row.some((a) => a.module === to))
    // Only the API layer and the daemon that composes it know the HTTP layer.
    assert.deepEqual(
      importers('http').map(([m]) => m),
      ['api', 'daemon'],
    )
    // Clients reach the daemon through client and schemas; pure leaves aside, a server module
    // only through a row's named file (`hearth daemon`, `hearth models refresh`).
    const leaves = new Set(['schemas', 'util', 'build-info', 'home'])
    for (const m of CLIENT_SIDE)
      for (const a of table.get(m) ?? [])
        assert.ok(
          CLIENT_SIDE.includes(a.module) || leaves.has(a.module) || a.onlyFrom,
          `${m} may not import ${a.module}: a client reaches the daemon through client and schemas`,
        )
    assert.deepEqual(rowText(table, 'client'), 'schemas')
    assert.equal(mayImport(table, 'tui', 'cli'), false, 'tui does not import cli')
    assert.equal(mayImport(table, 'providers', 'auth'), false, 'providers do not import auth')
    assert.equal(rowText(table, 'schemas'), 'nothing', 'schemas import no other module')
    // No server module imports a client; only the daemon imports the API layer, and no
    // server module imports the daemon that composes them.
    for (const [m, row] of table) {
      if (CLIENT_SIDE.includes(m) || m === 'main' || m === 'daemon-main') continue
      for (const a of row) {
        assert.ok(!CLIENT_SIDE.includes(a.module), `${m} may not import the client ${a.module}`)
        assert.ok(a.module !== 'daemon', `${m} may not import daemon`)
        assert.ok(a.module !== 'api' || m === 'daemon', `${m} may not import api`)
      }
    }
  })

  it('the usage core imports only the usage modules of providers and the leaves', () => {
    const leaves = new Set(['schemas', 'util', 'build-info', 'home'])
    const breaks = internal()
      .filter((i) => moduleOf(i.file) === 'usage-core' && moduleOf(i.path) !== 'usage-core')
      .filter(
        (i) => !leaves.has(moduleOf(i.path)) && !/^src\/providers\/[\w-]+\/usage[\w-]*\.ts$/.test(i.path),
      )
      .map(
        (i) => `${i.file} imports ${i.path}: the usage core imports providers' usage*.ts and the leaves only`,
      )
    assert.deepEqual(breaks, [])
  })

  it('leaves no folder-level import cycle', (t) => {
    const edges = new Map<string, Set<string>>()
    for (const i of internal()) {
      const from = moduleOf(i.file)
      const to = moduleOf(i.path)
      if (from === to) continue
      if (!edges.has(from)) edges.set(from, new Set())
      edges.get(from)!.add(to)
    }
    const left = cycles(edges)
    t.diagnostic(`folder-level cycles: ${left.length}${left.map((c) => ` [${c.join(', ')}]`).join('')}`)
    assert.deepStrictEqual(
      left.map((c) => `an import cycle between ${c.join(', ')}: break it (the table must not allow it)`),
      [],
    )
  })
})
