// Writes src/tools/definitions.ts: the built-in tools as the model is offered them (name,
// description, parameters as plain JSON Schema, effect), taken from the tools themselves.
// A kernel reports these when it is ready without loading the tools' code, which it loads on
// a step's first use of tools. Run after changing a tool's name, description or parameters;
// test/tools/definitions.test.ts fails while the file is stale (then `biome check --write`).
import { writeFileSync } from 'node:fs'
import { definitionsSource } from '../test/tools/definitions-source.ts'

const out = new URL('../src/tools/definitions.ts', import.meta.url)
writeFileSync(out, definitionsSource())
console.log(`wrote ${out.pathname}`)
