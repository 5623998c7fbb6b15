// The shell tool on a real bash in a temp workspace (no sandbox here: sandbox.test.ts runs
// the same through bubblewrap): output streamed in order as it comes, capped with head and
// tail, exit codes, and a command that is stopped (timeout, interrupt) or that ends leaves no
// process of its group behind.
import assert from 'node:assert/strict'
import { mkdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { createShellTool, type ShellArgs } from '../../../src/tools/exec/shell.ts'
import type { ToolResult } from '../../../src/tools/types.ts'
import { makeContext, marker, processesWith, type TestContext, text } from './helpers.ts'

const shell = createShellTool()
let t: TestContext
afterEach(() => t?.cleanup())

function run(args: ShellArgs): Promise<ToolResult> {
  return shell.run(args, t.ctx)
}

describe('shell', () => {
  it('streams stdout and stderr as they come, in order, and returns them with the exit code', async () => {
    t = makeContext()
    const seen: number[] = []
    const started = performance.now()
    t.ctx.progress = (chunk) => {
      t.progress.push(chunk)
      seen.push(performance.now() - started)
    }
    const r = await run({ command: 'for i in 1 2 3; do echo out$i; echo err$i >&2; sleep 0.2; done; exit 3' })
    assert.equal(r.outcome, 'ok')
    assert.equal(r.meta?.exit_code, 3)
    assert.equal(text(t.progress, 'stdout'), 'out1\nout2\nout3\n')
    assert.equal(text(t.progress, 'stderr'), 'err1\nerr2\nerr3\n')
    // The first line reached the subscriber long before the command ended (~0.6 s).
    assert.ok(seen[0] < (performance.now() - started) / 2, `first chunk at ${seen[0]} ms`)
    for (let i = 1; i <= 3; i++) assert.match(r.output, new RegExp(`out${i}\\nerr${i}`))
    assert.match(r.output, /\[exit code 3\]$/)
  })

  it('decodes UTF-8 characters split across chunks', async () => {
    t = makeContext()
    const r = await run({
      command: "printf 'caf\\xc3'; sleep 0.2; printf '\\xa9 \\xe2\\x82'; sleep 0.2; printf '\\xac\\n'",
    })
    assert.equal(r.outcome, 'ok')
    assert.ok(t.progress.length >= 2, 'arrived in several chunks')
    assert.equal(text(t.progress), 'café €\n')
    assert.ok(!text(t.progress).includes('\ufffd'))
  })

  it('keeps the head and the tail of a long output and says how much was cut', async () => {
    t = makeContext()
    const r = await run({ command: 'echo FIRST; head -c 1000000 /dev/zero | tr "\\0" x; echo; echo LAST' })
    assert.equal(r.outcome, 'ok')
    assert.ok(r.output.startsWith('FIRST\nxxx'))
    assert.match(r.output, /LAST\n\[exit code 0\]$/)
    const cut = Number(/\[… (\d+) bytes of output cut …\]/.exec(r.output)?.[1])
    assert.equal(r.meta?.output_bytes, 6 + 1_000_000 + 1 + 5)
    assert.equal(cut, r.meta?.truncated_bytes)
    assert.ok(r.output.length < 40 * 1024, `output is ${r.output.length} chars`)
    assert.equal(text(t.progress).length, 6 + 1_000_000 + 1 + 5, 'subscribers get all of it')
  })

  it('stops the whole group on timeout and keeps what was printed', async () => {
    t = makeContext()
    const m = marker()
    const started = performance.now()
    const r = await run({ command: `echo before; sleep ${m} & sleep ${m}; echo never`, timeout_seconds: 1 })
    assert.equal(r.outcome, 'timeout')
    assert.match(r.output, /^before\n\[stopped: no end after 1 s\]$/)
    assert.ok(performance.now() - started < 5000)
    assert.deepEqual(processesWith(`sleep ${m}`), [])
  })

  it('stops the whole group on interrupt, partial output kept, even a child that ignores SIGTERM', async () => {
    t = makeContext()
    const m = marker()
    const pending = run({
      command: `echo partial; (trap '' TERM; sleep ${m}) & sleep ${m} & sleep ${m}`,
    })
    while (!text(t.progress).includes('partial')) await sleep(20)
    await sleep(100)
    assert.ok(
      processesWith(`sleep ${m}`).length >= 3,
      'the sleeps run (and the shells whose command line names them)',
    )
    t.abort.abort()
    const r = await pending
    assert.equal(r.outcome, 'interrupted')
    assert.match(r.output, /^partial\n\[stopped: interrupted\]$/)
    assert.deepEqual(processesWith(`sleep ${m}`), [], 'SIGKILL after the grace took the one ignoring TERM')
  })

  it('leaves no background process behind when the command ends', async () => {
    t = makeContext()
    const m = marker()
    const started = performance.now()
    const r = await run({ command: `sleep ${m} & sleep ${m} & echo started` })
    assert.equal(r.outcome, 'ok')
    assert.equal(r.meta?.exit_code, 0)
    assert.ok(performance.now() - started < 5000, 'did not wait for the background sleeps')
    assert.deepEqual(processesWith(`sleep ${m}`), [])
  })

  it('runs in a subdirectory and refuses directories outside the workspace', async () => {
    t = makeContext()
    mkdirSync(join(t.workspace, 'sub'))
    symlinkSync('/etc', join(t.workspace, 'out'))
    const ok = await run({ command: 'pwd', cwd: 'sub' })
    assert.equal(ok.outcome, 'ok')
    assert.equal(ok.output, `${join(t.workspace, 'sub')}\n[exit code 0]`)
    for (const cwd of ['..', '/etc', 'out', 'sub/../..', 'missing']) {
      const r = await run({ command: 'touch escaped', cwd })
      assert.equal(r.outcome, 'error', cwd)
      assert.match(r.output, /outside the workspace|does not exist/)
    }
  })

  it('does not start when the run is already interrupted', async () => {
    t = makeContext()
    t.abort.abort()
    const r = await run({ command: `touch ${join(t.workspace, 'ran')}` })
    assert.equal(r.outcome, 'interrupted')
  })

  it('gives the command an empty stdin', async () => {
    t = makeContext()
    const r = await run({ command: 'cat; echo done', timeout_seconds: 5 })
    assert.equal(r.outcome, 'ok')
    assert.equal(r.output, 'done\n[exit code 0]')
  })
})
