// The names MCP tools are offered under: every one fits the rule all of hearth's providers
// accept, different tools never share one, and the same tool always gets the same one.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { mcpToolName, TOOL_NAME_MAX, withHash } from '../../src/mcp/names.ts'

/** OpenAI and Gemini: 64 characters; Gemini: a letter or `_` first. */
const PROVIDER_RULE = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/

describe('MCP tool names', () => {
  it('a plain name is mcp__server__tool, unchanged', () => {
    assert.equal(mcpToolName('github', 'create_issue'), 'mcp__github__create_issue')
    assert.equal(mcpToolName('my-server', 'get-thing'), 'mcp__my-server__get-thing')
  })

  it('characters a provider refuses become _, and the name keeps a hash of the original', () => {
    const name = mcpToolName('docs.v2', 'search.all')
    assert.match(name, PROVIDER_RULE)
    assert.match(name, /^mcp__docs_v2__search_all_[0-9a-f]{8}$/)
    // Two tools that differ only in such characters get different names.
    assert.notEqual(mcpToolName('s', 'a.b'), mcpToolName('s', 'a:b'))
    assert.notEqual(mcpToolName('s', 'a.b'), mcpToolName('s', 'a_b'))
  })

  it('a long name is cut to 64 characters and stays unique and stable', () => {
    const server = 'a-server-with-quite-a-long-name'
    const a = mcpToolName(server, `${'x'.repeat(60)}_one`)
    const b = mcpToolName(server, `${'x'.repeat(60)}_two`)
    assert.equal(a.length, TOOL_NAME_MAX)
    assert.match(a, PROVIDER_RULE)
    assert.notEqual(a, b)
    assert.equal(mcpToolName(server, `${'x'.repeat(60)}_one`), a)
  })

  it('unicode, spaces and empty parts still give a valid name', () => {
    for (const [server, tool] of [
      ['café', 'résumé'],
      ['s', 'with space'],
      ['s', ''],
      ['0digits', '9lives'],
    ])
      assert.match(mcpToolName(server, tool), PROVIDER_RULE, `${server}/${tool}`)
    assert.match(withHash('mcp__s__t', 'mcp__s__t\0x'), PROVIDER_RULE)
  })
})
