#!/usr/bin/env node
// Launcher: refuse an old Node with a clear message, enable the compile cache, then load
// the bundle that `npm ci` (prepare) built.
const [major] = process.versions.node.split('.').map(Number)
if (major < 24) {
  process.stderr.write(
    `hearth needs Node.js 24 or newer; this is ${process.version}.\n` +
      'Run it through npm (npm start, npx hearth), which uses the Node 24 the project installs, or install Node 24.\n',
  )
  process.exit(1)
}
const { enableCompileCache } = await import('node:module')
enableCompileCache?.()
await import('../dist/hearth.mjs')
