#!/usr/bin/env -S node --max-semi-space-size=1
// Launcher: refuse an old Node with a clear message, enable the compile cache, then load
// the bundle that `npm ci` (prepare) built. Keep this file plain JavaScript that any Node
// can parse, with no static imports, so the version check is the first thing that runs.
//
// The V8 flag on the first line keeps the daemon small (docs/performance.md, Memory): a 1 MB
// young generation instead of one sized from the machine's memory (64 MB here). Heap sizes
// are fixed when Node starts, so it lives in the shebang (`npx hearth`, the installed
// `hearth`) and in `npm start`; kernels are forked without it. Other V8 flags are set by the
// daemon once it is ready (src/daemon/run.ts, setMemoryFlags): set here, they would make
// Node reject the code cache of its own modules and slow start-up by ~20 ms. Only flags
// every Node still accepts go on the first line, so an old Node reaches the message below.
const [major] = process.versions.node.split('.').map(Number)
if (major < 24) {
  process.stderr.write(
    `hearth needs Node.js 24 or newer; this is ${process.version}.\n` +
      'Run it through npm (npm start, npx hearth), which uses the Node 24 the project installs, or install Node 24.\n',
  )
  process.exit(1)
}
// process.getBuiltinModule, not import(): an ESM import of node:fs builds a facade that
// reads every export, which loads fs streams and promises (milliseconds) for nothing.
const { enableCompileCache } = process.getBuiltinModule('node:module')
const { existsSync } = process.getBuiltinModule('node:fs')
// `hearth daemon` has a bundle of its own (scripts/build.mjs says why). The command is the
// first word after the global options (`hearth --home DIR daemon`; src/cli/args.ts).
let at = 2
while (process.argv[at] === '--home' || process.argv[at]?.startsWith('--home='))
  at += process.argv[at] === '--home' ? 2 : 1
const bundle = new URL(`../dist/${process.argv[at] === 'daemon' ? 'daemon' : 'hearth'}.mjs`, import.meta.url)
if (!existsSync(bundle)) {
  process.stderr.write(`hearth: ${bundle.pathname} is missing; build it with: npm run build\n`)
  process.exit(1)
}
enableCompileCache?.()
await import(bundle.href)
