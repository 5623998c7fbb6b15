// Bundles src/ into dist/hearth.mjs (better-sqlite3 stays external: it loads a native
// binary). The daemon starts from this bundle: one file parses far faster than hundreds.
import { execFileSync } from 'node:child_process'
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

await build({
  entryPoints: ['src/main.ts'],
  outfile: 'dist/hearth.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  external: ['better-sqlite3'],
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
})
