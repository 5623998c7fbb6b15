// docs/openapi.json passes Redocly's recommended rules, strict (a warning fails), and the
// rules general OpenAPI linters add by default: every operation has a description and
// defined, described tags, the license is named by its SPDX identifier and there is a contact. The linter is
// Redocly CLI's own engine; it reads only the local file (the document has no remote $ref).
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { createConfig, lint } from '@redocly/openapi-core'
import { ROOT } from '../helpers/daemon.ts'

describe('OpenAPI lint', () => {
  it('docs/openapi.json has no problem under the recommended rules', async () => {
    const config = await createConfig({
      extends: ['recommended-strict'],
      rules: {
        'operation-description': 'error',
        'operation-tag-defined': 'error',
        'tag-description': 'error',
        'info-license-strict': 'error',
        'info-contact': 'error',
      },
    })
    const problems = await lint({ ref: join(ROOT, 'docs/openapi.json'), config })
    const shown = problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`)
    assert.deepEqual(shown, [])
  })
})
