// The operation table's routing facts, put in the bundle by scripts/build-web.mjs from
// src/schemas (the same table the daemon serves), so the page calls operations by id.
declare const __HEARTH_OPS__: Record<string, { method: string; path: string; bodyMediaType: string }>

// Style sheets are bundled by esbuild (scripts/build-web.mjs) into app-<hash>.css.
declare module '*.css'
