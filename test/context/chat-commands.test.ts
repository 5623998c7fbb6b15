// `/context` and `/compact` in `hearth chat` (line mode) against a real daemon, and the same
// commands in the terminal client's command table.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { compactArgs } from '../../src/client/context-view.ts'
import { parseCommand } from '../../src/tui/commands.ts'
import { runCli } from '../helpers/daemon.ts'
import { startWithUpstream } from '../inputs/helpers.ts'

describe('chat commands for the context', () => {
  it('hearth chat prints the context table and compacts', async () => {
    const { d, upstream } = await startWithUpstream({ protocol: 'chat_completions' })
    try {
      const { code, stdout, stderr } = await runCli(
        ['chat', '--home', d.home, '--workspace', d.home],
        {},
        {
          stdin: ['first', 'second', 'third', '/context', '/compact 1', '/compact', 'fourth', ''].join('\n'),
          timeoutMs: 30_000,
        },
      )
      assert.equal(code, 0, stderr)
      assert.match(stdout, /fake-model on fake, window unknown: the next request holds ~[\d,]+ tokens/)
      assert.match(
        stdout,
        /\n {2}section +tokens\n {2}instructions +[\d,]+\n {4}own +[\d,]+\n {4}environment +\d+\n {2}tools +[\d,]+\n {2}history +\d+\n/,
      )
      assert.match(stdout, /history: entries 1–6 verbatim \(3 turns\)/)
      assert.match(
        stdout,
        /strategy: summarize, keeping 1 turns \(kept for this session\)\ncompacted 2 turns: ~[\d,]+ → ~[\d,]+ tokens/,
      )
      assert.match(stdout, /nothing to compact: no turn lies before the ones kept/)
      // The turn after the compaction sent the system text, the summary, then the kept turn
      // and the new one.
      const body = upstream.requests.at(-1)?.body
      assert.equal(body.messages[0].role, 'system')
      assert.match(body.messages[1].content, /<summary>\nHello, world!\n<\/summary>/)
      assert.deepEqual(
        body.messages.slice(2).map((m: any) => m.content),
        ['third', 'Hello, world!', 'fourth'],
      )
    } finally {
      await d.stop()
      await upstream.close()
    }
  })

  it('the terminal client lists /context and /compact', () => {
    assert.equal(parseCommand('/context')?.command?.name, 'context')
    const c = parseCommand('/compact truncate 3 keep the API decisions')
    assert.equal(c?.command?.name, 'compact')
    assert.deepEqual(compactArgs(c?.args ?? ''), {
      strategy: 'truncate',
      keep_turns: 3,
      focus: 'keep the API decisions',
    })
    assert.deepEqual(compactArgs(''), {})
  })
})
