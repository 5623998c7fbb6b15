import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { toolsChars, toolsText } from '../../src/context/estimate.ts'

describe('toolsChars', () => {
  it('is the length of the tools as a request carries them, on every call', () => {
    const schema = {
      type: 'object',
      properties: { path: { type: 'string', description: 'a "quoted" é path' } },
    }
    const tools = [
      { name: 'read', description: 'Reads a file.\nLine two', parameters: schema },
      { name: 'none', description: '', parameters: undefined },
      { name: 'same', description: 'The same schema again', parameters: schema },
      { name: 'flat', description: 'x', parameters: null },
    ]
    for (const list of [tools, tools.slice(0, 1), tools.slice(1, 2), []]) {
      assert.equal(toolsChars(list), toolsText(list).length)
      assert.equal(toolsChars(list), toolsText(list).length) // the second time from the remembered schema
    }
  })
})
