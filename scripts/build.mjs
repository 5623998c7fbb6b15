// Bundles src/ into dist/hearth.mjs (better-sqlite3 stays external: it loads a native
// binary). The daemon starts from this bundle: one file parses far faster than hundreds.
import { execFileSync } from 'node:child_process'
import { isBuiltin } from 'node:module'
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

const options = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  external: ['better-sqlite3'],
  plugins: [lazyBuiltins],
  mainFields: ['module', 'main'],
  define: { __HEARTH_COMMIT__: JSON.stringify(`g${commit()}`) },
  // CommonJS dependencies expect require, __filename and __dirname.
  banner: {
    js: [
      "import { createRequire as __hearthRequire } from 'node:module';",
      "import { fileURLToPath as __hearthPath } from 'node:url';",
      'const require = __hearthRequire(import.meta.url);',
      'const __filename = __hearthPath(import.meta.url);',
      "const __dirname = __filename.slice(0, __filename.lastIndexOf('/'));",
    ].join(' '),
  },
  legalComments: 'none',
  logLevel: 'warning',
}

await Promise.all([
  build({ ...options, entryPoints: ['src/main.ts'], outfile: 'dist/hearth.mjs' }),
  // The kernel process (one per busy session) loads only its own, smaller bundle.
  build({ ...options, entryPoints: ['src/kernel/main.ts'], outfile: 'dist/kernel.mjs' }),
])
