// Writes docs/openapi.json (the document GET /openapi.json serves) and docs/problems.md (the
// problem code registry) from the sources. Run after changing an op or a problem code:
// `npm run openapi:write`. test/contract/openapi.test.ts fails while either is stale.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { buildOpenApi } from '../src/openapi/build.ts'
import { problemsMarkdown } from '../src/openapi/problems-doc.ts'
import { ALL_OPS } from '../src/schemas/index.ts'

const docs = join(resolve(import.meta.dirname, '..'), 'docs')
mkdirSync(docs, { recursive: true })

const files = {
  'openapi.json': `${JSON.stringify(buildOpenApi(ALL_OPS), null, 2)}\n`,
  'problems.md': problemsMarkdown(),
}
for (const [name, text] of Object.entries(files)) {
  writeFileSync(join(docs, name), text)
  console.log(`wrote docs/${name}`)
}
