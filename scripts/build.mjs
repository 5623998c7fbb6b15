// Bundles src/ into dist/hearth.mjs (the CLI), dist/daemon.mjs (`hearth daemon`) and the
// chunks they import, plus dist/kernel.mjs (better-sqlite3's native addon stays in its
// package). A few files parse far faster than hundreds.
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { createRequire, isBuiltin } from 'node:module'
import { basename, join } from 'node:path'
import { build } from 'esbuild'

const require = createRequire(import.meta.url)

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
const builtinExports = (path) =>
  Object.getOwnPropertyNames(require(path)).filter((name) => {
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

/**
 * better-sqlite3's JavaScript is bundled (fourteen small CommonJS files took ~5 ms to resolve,
 * read and compile one by one; bundled, ~1.5 ms); its native addon is loaded from the
 * installed package. The one file that looks for the addon, lib/binding.js, looks beside
 * itself (`__dirname`); in the bundle that becomes the installed package's lib folder, found
 * when the addon is first needed: ../node_modules/better-sqlite3 from dist/, the first place
 * Node's resolution looks, else wherever require.resolve finds it (hoisted or nested; ~1.5
 * ms, so only when the first place is empty).
 */
const sqliteAddonFromPackage = {
  name: 'sqlite-addon-from-package',
  setup(b) {
    b.onLoad({ filter: /better-sqlite3[\\/]lib[\\/]binding\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8')
      if (!source.includes('__dirname'))
        throw new Error(`${args.path} no longer finds its addon from __dirname`)
      return {
        contents: [
          source.replaceAll('__dirname', 'betterSqliteLib()'),
          'let betterSqliteLibDir',
          'function betterSqliteLib() {',
          "  const near = path.join(__dirname, '..', 'node_modules', 'better-sqlite3', 'lib')",
          "  betterSqliteLibDir ??= fs.existsSync(path.join(near, 'binding.js')) ? near : path.dirname(require.resolve('better-sqlite3'))",
          '  return betterSqliteLibDir',
          '}',
        ].join('\n'),
        loader: 'js',
      }
    })
  },
}

/**
 * pi-tui's utils build a grapheme segmenter (Intl.Segmenter loads ICU's break rules) and the
 * RGI_Emoji regular expression (a property of strings: thousands of sequences) when the module
 * loads: ~15 ms on a quiet machine, ~100 ms under load, all before the client's first frame,
 * which needs neither (the emoji test runs only for code points that may be emoji, and the
 * segmenter only for non-ASCII text). Both are made on first use instead, and text of
 * SIMPLE_TEXT is split into its characters without the segmenter. Only `.segment()`
 * and `.test()` are ever called on them (checked when pi-tui is upgraded: the build fails if
 * the lines are gone).
 */
/**
 * Text whose every character is its own grapheme one column wide: printable ASCII, Latin
 * letters and signs (not the soft hyphen), dashes, quotes, bullets and ellipses, arrows, box
 * drawing and blocks, none of them combining, joining or a variation selector. The client's
 * frame is mostly such text (its borders are box drawing), so splitting it needs no segmenter.
 * Array.from gives index in UTF-16 units, which equals the character index here (all BMP).
 */
const SIMPLE_TEXT =
  '/^[\\x20-\\x7e\\xa0-\\xac\\xae-\\u02ff\\u2010-\\u2027\\u2030-\\u205e\\u2190-\\u21ff\\u2500-\\u259f]*$/'

const lazyPiTuiTables = {
  name: 'lazy-pi-tui-tables',
  setup(b) {
    b.onLoad({ filter: /@mariozechner[\\/]pi-tui[\\/]dist[\\/]utils\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8')
      const segmenter = 'const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });'
      const emoji = 'const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;'
      for (const line of [segmenter, emoji])
        if (!source.includes(line)) throw new Error(`${args.path} no longer holds: ${line}`)
      return {
        contents: source
          .replace(
            segmenter,
            `let graphemes; const segmenter = { segment: (text) => ${SIMPLE_TEXT}.test(text) ? Array.from(text, (segment, index) => ({ segment, index, input: text })) : (graphemes ??= new Intl.Segmenter(undefined, { granularity: "grapheme" })).segment(text) };`,
          )
          .replace(
            emoji,
            'let rgiEmoji; const rgiEmojiRegex = { test: (s) => (rgiEmoji ??= new RegExp("^\\\\p{RGI_Emoji}$", "v")).test(s) };',
          ),
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
  plugins: [lazyBuiltins, sqliteAddonFromPackage, lazyPiTuiTables],
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

/**
 * Split at dynamic imports, so every module is plain top-level code that esbuild can
 * tree-shake (in one file, everything behind an import() is wrapped in a lazy initializer
 * and kept whole: the daemon started ~20 ms slower, 3-4 MB larger). Chunks sit beside the
 * entry: code that resolves files from import.meta.url.
 */
const split = (entryPoints) =>
  build({
    ...options,
    entryPoints,
    outdir: 'dist',
    splitting: true,
    chunkNames: '[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    metafile: true,
  })

const bundles = await Promise.all([
  // The `hearth` command: the CLI, with each command's code in its own chunks.
  split({ hearth: 'src/main.ts' }),
  // `hearth daemon`, built on its own: sharing chunks with the CLI's lazily loaded commands
  // cut it into fifteen files, and each module Node loads costs ~0.25 ms.
  split({ daemon: 'src/daemon-main.ts' }),
  // The kernel process (one per busy session) loads only its own, smaller bundle.
  build({ ...options, entryPoints: ['src/kernel/main.ts'], outfile: 'dist/kernel.mjs', metafile: true }),
  // The MCP client (the SDK with zod and ajv, ~0.7 MB) is a bundle of its own, which a kernel
  // loads only once a session has MCP servers (src/kernel/mcp/host.ts).
  build({
    ...options,
    entryPoints: ['src/kernel/mcp/connection.ts'],
    outfile: 'dist/kernel-mcp.mjs',
    metafile: true,
  }),
])

// Chunk names carry a content hash, so each build leaves the previous chunks behind. They are
// removed once an hour old: a process started from the previous build may still import one.
const written = new Set(bundles.flatMap((b) => Object.keys(b.metafile.outputs)).map((f) => basename(f)))
for (const name of readdirSync('dist')) {
  const path = join('dist', name)
  if (name.endsWith('.mjs') && !written.has(name)) {
    if (Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path)
  }
}
