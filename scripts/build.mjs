// Bundles src/ into dist/hearth.mjs and the chunks it imports, plus dist/kernel.mjs
// (better-sqlite3 stays external: it loads a native binary). The daemon starts from this
// bundle: a few files parse far faster than hundreds.
import { execFileSync } from 'node:child_process'
import { readdirSync, rmSync, statSync } from 'node:fs'
import { isBuiltin } from 'node:module'
import { basename, join } from 'node:path'
import { build } from 'esbuild'

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
 * ~17 MB), node:fs loads its streams and promises, node:crypto its webcrypto. Bundled as a
 * CommonJS module instead, an import becomes a property read at the point of use.
 */
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    b.onResolve({ filter: /^[a-z_:/0-9]+$/ }, (args) =>
      isBuiltin(args.path) ? { path: args.path, namespace: 'builtin' } : undefined,
    )
    b.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({
      contents: `module.exports = process.getBuiltinModule(${JSON.stringify(args.path)})`,
      loader: 'js',
    }))
  },
}

/**
 * better-sqlite3 stays outside the bundle (it loads a native binary) and is loaded with
 * require() where the bundle first needs it: as an ESM import it would be loaded, through
 * the slower ESM-to-CommonJS path, before any bundle code runs, even for `hearth --version`.
 */
const requiredExternals = {
  name: 'required-externals',
  setup(b) {
    b.onResolve({ filter: /^better-sqlite3$/ }, (args) => ({ path: args.path, namespace: 'required' }))
    b.onLoad({ filter: /.*/, namespace: 'required' }, (args) => ({
      contents: `module.exports = __hearthRequire(${JSON.stringify(args.path)})`,
      loader: 'js',
    }))
  },
}

const options = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  plugins: [lazyBuiltins, requiredExternals],
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
}

const [main] = await Promise.all([
  // Split at dynamic imports: `hearth daemon` loads dist/hearth.mjs, the daemon's chunk and
  // the chunks they share, not the other commands. Split, every module is plain top-level
  // code that esbuild can tree-shake; in one file, everything behind an import() is wrapped
  // in a lazy initializer and kept whole (the daemon started ~20 ms slower, 3-4 MB larger).
  build({
    ...options,
    entryPoints: { hearth: 'src/main.ts' },
    outdir: 'dist',
    splitting: true,
    chunkNames: '[name]-[hash]', // beside hearth.mjs: code that resolves files from import.meta.url
    outExtension: { '.js': '.mjs' },
    metafile: true,
  }),
  // The kernel process (one per busy session) loads only its own, smaller bundle.
  build({ ...options, entryPoints: ['src/kernel/main.ts'], outfile: 'dist/kernel.mjs' }),
])

// Chunk names carry a content hash, so each build leaves the previous chunks behind. They are
// removed once an hour old: a process started from the previous build may still import one.
const written = new Set([...Object.keys(main.metafile.outputs)].map((f) => basename(f)))
for (const name of readdirSync('dist')) {
  const path = join('dist', name)
  if (name.endsWith('.mjs') && name !== 'kernel.mjs' && !written.has(name)) {
    if (Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path)
  }
}
