import assert from 'node:assert/strict'
import { test } from 'node:test'
import { BUILTIN_DEFINITIONS } from '../../src/tools/definitions.ts'
import { offeredNow } from './definitions-source.ts'

test('the generated tool definitions are those the tools define (node scripts/write-tool-definitions.ts)', () => {
  assert.deepEqual(BUILTIN_DEFINITIONS, offeredNow())
})
