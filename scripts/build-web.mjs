// Builds the web client (src/web/app/) into a folder: hashed script and style files (a file's
// name never changes meaning, so the daemon lets browsers keep them), the chunks loaded on
// demand (the highlighter's grammars), index.html naming them, and each file precompressed
// (.br, .gz) for the daemon to send as it is. The page is served by the daemon under /web/
// (src/http/web-files.ts).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { build } from 'esbuild'

/** Each operation's method, path and body media type, for the page's typed API layer. */
async function operationTable(root) {
  const { ALL_OPS } = await import(pathToFileURL(join(root, 'src/schemas/index.ts')).href)
  return Object.fromEntries(
    Object.entries(ALL_OPS).map(([id, op]) => [
      id,
      { method: op.method, path: op.path, bodyMediaType: op.bodyMediaType ?? 'application/json' },
    ]),
  )
}

function indexHtml(script, style, preloads) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light dark">
<title>hearth</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${style}">
${preloads.map((p) => `<link rel="modulepreload" href="${p}">\n`).join('')}<script type="module" src="${script}"></script>
</head>
<body>
<div id="app"></div>
</body>
</html>
`
}

function precompress(dir, name) {
  const bytes = readFileSync(join(dir, name))
  writeFileSync(join(dir, `${name}.gz`), gzipSync(bytes, { level: 9 }))
  writeFileSync(
    join(dir, `${name}.br`),
    brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
  )
}

/** Builds the web client into `dir`; resolves with the names written (index.html last). */
export async function buildWeb(root, dir) {
  mkdirSync(dir, { recursive: true })
  const result = await build({
    absWorkingDir: root,
    entryPoints: { app: 'src/web/app/main.tsx' },
    outdir: dir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome115', 'firefox115', 'safari16'],
    minify: true,
    entryNames: '[name]-[hash]',
    chunkNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    define: { __HEARTH_OPS__: JSON.stringify(await operationTable(root)) },
    legalComments: 'none',
    charset: 'utf8',
    metafile: true,
    logLevel: 'warning',
  })
  const outputs = Object.keys(result.metafile.outputs).map((f) => basename(f))
  const script = outputs.find((n) => /^app-[A-Z0-9]+\.js$/.test(n))
  const style = outputs.find((n) => /^app-[A-Z0-9]+\.css$/.test(n))
  if (!script || !style) throw new Error(`the web build made no app script or style: ${outputs.join(', ')}`)
  // The chunks the app imports statically (code it shares with the screens loaded later) are
  // fetched beside it rather than after it has been read.
  const appOutput = Object.entries(result.metafile.outputs).find(([f]) => basename(f) === script)?.[1]
  const preloads = (appOutput?.imports ?? [])
    .filter((i) => i.kind === 'import-statement')
    .map((i) => basename(i.path))
  writeFileSync(join(dir, 'index.html'), indexHtml(script, style, preloads))
  const names = [...outputs.filter((n) => !n.endsWith('.map')), 'index.html']
  for (const name of names) precompress(dir, name)
  return names.flatMap((n) => [n, `${n}.gz`, `${n}.br`])
}
