// Bundles src/ into dist/hearth.mjs (the CLI), dist/daemon.mjs (`hearth daemon`) and the
// chunks they import, plus dist/kernel.mjs and dist/usage-core.mjs (better-sqlite3's native
// addon stays in its package). A few files parse far faster than hundreds.
//
// A `hearth` may be starting from dist/ while it is rebuilt (`npm test`, `npm link`), so
// dist/ changes only by whole files, in an order that never shows a half-built tree: the
// build is written to a folder beside dist/ and each file moved in with one rename, chunks
// first and the entry files last. A process that read the old hearth.mjs keeps importing
// the old chunks: their names carry a hash of their content (and of what they import), so a
// name never changes meaning, and a replaced build's files stay until no process can need
// them (publish, below).
import { execFileSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { createRequire, isBuiltin } from 'node:module'
import { basename, isAbsolute, join, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build, transform } from 'esbuild'
import lockfile from 'proper-lockfile'
import { buildWeb } from './build-web.mjs'
import { PATCHES, patchPlugin } from './patches.mjs'

const require = createRequire(import.meta.url)
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const DIST = join(ROOT, 'dist')

function commit() {
  try {
    return execFileSync('git', ['rev-parse', '--short=8', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim()
  } catch {
    return 'unknown'
  }
}

/**
 * Node's builtins are taken with process.getBuiltinModule() instead of `import`. An ESM
 * import of a builtin builds a facade that reads every export, getters included: importing
 * node:http that way reads its lazy WebSocket/EventSource getters and loads undici (~50 ms,
 * ~17 MB), node:fs loads its streams and promises, node:crypto its webcrypto.
 *
 * An `import` gets an ES module whose named exports are single property reads
 * (`export const join = m.join`, marked pure); esbuild keeps only the ones the bundle
 * imports, so nothing else of the builtin is touched. (As a CommonJS module, every importer would go through
 * esbuild's __toESM, which copies all the builtin's properties: 4.5 ms for node:util alone.)
 * A `require()` from a bundled CommonJS package gets the builtin object itself.
 */
/**
 * Exports left out of a builtin's module: deprecated getters whose read prints a warning
 * (`crypto.fips`, DEP0093) when a namespace import keeps every export of the module, as a
 * dependency's `import('node:crypto')` fallback does.
 */
const DEPRECATED_EXPORTS = new Set(['node:crypto fips', 'crypto fips'])

const builtinExports = (path) =>
  Object.getOwnPropertyNames(require(path)).filter((name) => {
    if (DEPRECATED_EXPORTS.has(`${path} ${name}`)) return false
    if (name === 'default' || !/^[A-Za-z_$][\w$]*$/.test(name)) return false
    try {
      new Function(`let ${name}`) // reserved words cannot be binding names
      return true
    } catch {
      return false
    }
  })
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    b.onResolve({ filter: /^[a-z_:/0-9]+$/ }, (args) => {
      if (!isBuiltin(args.path)) return undefined
      return { path: args.path, namespace: args.kind === 'require-call' ? 'builtin-cjs' : 'builtin' }
    })
    b.onLoad({ filter: /.*/, namespace: 'builtin-cjs' }, (args) => ({
      contents: `module.exports = process.getBuiltinModule(${JSON.stringify(args.path)})`,
      loader: 'js',
    }))
    b.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => {
      const names = builtinExports(args.path)
      return {
        contents: [
          `const m = process.getBuiltinModule(${JSON.stringify(args.path)})`,
          'export default m',
          // Marked pure so that esbuild drops the reads nobody imports (a plain property read
          // might run a getter, so esbuild would keep it).
          ...names.map((name) => `export const ${name} = /* @__PURE__ */ (() => m.${name})()`),
        ].join('\n'),
        loader: 'js',
      }
    })
  },
}

const options = {
  bundle: true,
  // sharp is a native addon with its platform's libvips beside it: loaded from node_modules,
  // and only when an image is to be scaled (src/inputs/images.ts).
  external: ['sharp'],
  platform: 'node',
  format: 'esm',
  target: 'node24',
  // Then the patches of dependency sources (scripts/patches.mjs), each failing the build
  // when the text it replaces has moved.
  plugins: [lazyBuiltins, ...PATCHES.map(patchPlugin)],
  mainFields: ['module', 'main'],
  define: { __HEARTH_COMMIT__: JSON.stringify(`g${commit()}`) },
  // CommonJS dependencies expect require, __filename and __dirname. No `import` here: an
  // ESM import of a builtin is slower than process.getBuiltinModule (see lazyBuiltins).
  banner: {
    js: [
      "const __hearthRequire = process.getBuiltinModule('node:module').createRequire(import.meta.url);",
      'const require = __hearthRequire;',
      'const __filename = import.meta.filename;',
      'const __dirname = import.meta.dirname;',
    ].join(' '),
  },
  legalComments: 'none',
  logLevel: 'warning',
  absWorkingDir: ROOT,
}

/**
 * Split at dynamic imports, so every module is plain top-level code that esbuild can
 * tree-shake (in one file, everything behind an import() is wrapped in a lazy initializer
 * and kept whole: the daemon started ~20 ms slower, 3-4 MB larger). Chunks sit beside the
 * entry: code that resolves files from import.meta.url.
 */
const split = (outdir, entryPoints, more = {}) =>
  build({
    ...options,
    ...more,
    entryPoints,
    outdir,
    splitting: true,
    chunkNames: '[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    metafile: true,
  })

/**
 * The daemon's and the kernels' bundles without their layout (whitespace, syntax; names kept):
 * V8 keeps a module's source for the process's life, and the layout was ~1 MB of it in the
 * daemon, ~0.3 MB in each kernel (bench/notes/memory.md). A source map beside each (no
 * sources inside, never loaded by Node) maps code back to its module for the profile bench.
 */
const compact = { minifyWhitespace: true, minifySyntax: true, sourcemap: 'external', sourcesContent: false }

/** Builds every bundle into `out`; resolves with the names of the files written. */
async function buildInto(out) {
  const bundles = await Promise.all([
    // The `hearth` command: the CLI, with each command's code in its own chunks.
    split(out, { hearth: 'src/main.ts' }),
    // `hearth daemon`, built on its own: sharing chunks with the CLI's lazily loaded commands
    // cut it into fifteen files, and each module Node loads costs ~0.25 ms.
    split(out, { daemon: 'src/daemon-main.ts' }, compact),
    // The kernel process (one per busy session) loads only its own, smaller bundle.
    build({
      ...options,
      ...compact,
      entryPoints: ['src/kernel/main.ts'],
      outfile: join(out, 'kernel.mjs'),
      metafile: true,
    }),
    // The MCP client (the SDK with zod and ajv, ~0.7 MB) is a bundle of its own, which a kernel
    // loads only once a session has MCP servers (src/kernel/mcp/host.ts).
    build({
      ...options,
      entryPoints: ['src/kernel/mcp/connection.ts'],
      outfile: join(out, 'kernel-mcp.mjs'),
      metafile: true,
    }),
    // The usage core, a child process of the daemon's quota poller (src/usage-core/): its own
    // small bundle, nothing of the daemon's.
    build({
      ...options,
      entryPoints: ['src/usage-core/main.ts'],
      outfile: join(out, 'usage-core.mjs'),
      metafile: true,
    }),
  ])
  const written = new Set(bundles.flatMap((b) => Object.keys(b.metafile.outputs)).map((f) => basename(f)))
  for (const name of written) if (!name.endsWith('.map')) await asciiOnly(join(out, name))
  // The web client, served by the daemon from dist/web/ (scripts/build-web.mjs).
  for (const name of await buildWeb(ROOT, join(out, 'web'))) written.add(`web/${name}`)
  return written
}

/**
 * Escapes the non-ASCII text esbuild left in a bundle's comments: the comments it keeps
 * (JSDoc in a class body) are copied as they are, and one character past ASCII makes V8 hold
 * the whole source as two bytes a character, for the life of the process: dist/kernel.mjs
 * (1 MB) cost every kernel 1 MB more, dist/daemon.mjs the daemon 0.6 MB
 * (bench/notes/memory.md). Only a file whose non-ASCII text is all in comments is changed
 * (esbuild escapes strings and templates, not patterns): the same file without its comments
 * is ASCII already.
 */
async function asciiOnly(file) {
  const text = readFileSync(file, 'utf8')
  if (!NON_ASCII.test(text)) return
  const { code } = await transform(text, { minifyWhitespace: true, format: 'esm', charset: 'ascii' })
  if (NON_ASCII.test(code)) return
  writeFileSync(
    file,
    text.replace(/[^\0-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
  )
}
const NON_ASCII = /[^\0-\x7f]/

/**
 * The files a process opens by name rather than through an import, moved in last (the CLI's
 * entry last of all); the web page's index.html names its hashed files, so it follows them.
 */
const ENTRIES = [
  'web/index.html.gz',
  'web/index.html.br',
  'web/index.html',
  'usage-core.mjs',
  'kernel-mcp.mjs',
  'kernel.mjs',
  'daemon.mjs',
  'hearth.mjs',
]

/** The files of dist/ a build owns: bundles at the top, the web client's files in web/. */
function builtFiles() {
  const web = existsSync(join(DIST, 'web')) ? readdirSync(join(DIST, 'web')).map((n) => `web/${n}`) : []
  return [...readdirSync(DIST).filter((n) => n.endsWith('.mjs')), ...web]
}

/** A replaced build's files stay at least this long (where running processes cannot be listed). */
const KEEP_REPLACED_MS = 3_600_000

/** Which builds' files dist/ holds (a replaced build: when, and which processes might still use it). */
const LEDGER = join(DIST, '.builds.json')

/**
 * The processes running code of this checkout: a command-line argument under bin/ or dist/
 * (`hearth`, also through an npm link, the daemon, kernels). Linux only: elsewhere none are
 * found, and replaced builds stay KEEP_REPLACED_MS.
 */
function processesOfCheckout() {
  const root = realpathSync(ROOT)
  const inside = [join(root, 'bin') + sep, join(root, 'dist') + sep]
  const pids = []
  let entries = []
  try {
    entries = readdirSync('/proc')
  } catch {
    return pids
  }
  for (const pid of entries) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`)
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
      const uses = args.some((arg) => {
        try {
          const path = realpathSync(isAbsolute(arg) ? arg : resolve(cwd, arg))
          return inside.some((dir) => path.startsWith(dir))
        } catch {
          return false
        }
      })
      if (uses) pids.push(Number(pid))
    } catch {
      // gone, or not ours to read
    }
  }
  return pids
}

function alive(pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return err.code === 'EPERM'
  }
}

/**
 * Moves the files built in `out` into dist/ (a file whose content is already there stays
 * untouched: the kernel bundle keeps its identity, so kernels are not called stale for
 * nothing), then removes the files of replaced builds that no process can still import: one
 * replaced over KEEP_REPLACED_MS ago whose processes of then have all ended.
 */
function publish(out, written) {
  const ledger = existsSync(LEDGER) ? JSON.parse(readFileSync(LEDGER, 'utf8')) : []
  // Files from before the ledger count as one build, replaced now.
  const known = new Set(ledger.flatMap((b) => b.files))
  const unknown = builtFiles().filter((n) => !known.has(n))
  if (unknown.length > 0) ledger.push({ files: unknown, replaced_at: null, users: [] })
  const order = [...written].sort((a, b) => ENTRIES.indexOf(a) - ENTRIES.indexOf(b))
  mkdirSync(join(DIST, 'web'), { recursive: true })
  for (const name of order) {
    const from = join(out, name)
    const to = join(DIST, name)
    if (existsSync(to) && readFileSync(to).equals(readFileSync(from))) continue
    renameSync(from, to)
  }
  const now = Date.now()
  const users = processesOfCheckout()
  for (const b of ledger)
    if (b.replaced_at === null) {
      b.replaced_at = now
      b.users = users
    }
  ledger.push({ files: [...written], replaced_at: null, users: [] })
  const kept = ledger.filter(
    (b) => b.replaced_at === null || now - b.replaced_at < KEEP_REPLACED_MS || b.users.some(alive),
  )
  const keep = new Set(kept.flatMap((b) => b.files))
  for (const name of builtFiles()) if (!keep.has(name)) rmSync(join(DIST, name))
  writeFileSync(`${LEDGER}.tmp`, `${JSON.stringify(kept)}\n`)
  renameSync(`${LEDGER}.tmp`, LEDGER)
}

mkdirSync(DIST, { recursive: true })
// A build that was killed left its folder: removed once its process is gone.
for (const name of readdirSync(ROOT)) {
  const pid = /^dist\.tmp-(\d+)-/.exec(name)?.[1]
  if (pid && !alive(Number(pid))) rmSync(join(ROOT, name), { recursive: true, force: true })
}
const out = mkdtempSync(join(ROOT, `dist.tmp-${process.pid}-`))
try {
  const written = await buildInto(out)
  // Two builds at once (npm test beside npm link) publish one after the other.
  const release = await lockfile.lock(DIST, { retries: { retries: 100, minTimeout: 50, maxTimeout: 500 } })
  try {
    publish(out, written)
  } finally {
    await release()
  }
} finally {
  rmSync(out, { recursive: true, force: true })
}
