// The shell tool on a real bash in a temp workspace (no sandbox here: sandbox.test.ts runs
// the same through bubblewrap): output streamed in order as it comes, capped with head and
// tail, exit codes, and a command that is stopped (timeout, interrupt) or that ends leaves no
// process of its group behind.
import assert from 'node:assert/strict'
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { createShellTool, type ShellArgs } from '../../../src/tools/exec/shell.ts'
import type { ToolResult } from '../../../src/tools/types.ts'
import { makeContext, marker, processesWith, sleepsOf, type TestContext, text } from './helpers.ts'

const shell = createShellTool()
let t: TestContext
afterEach(() => t?.cleanup())

function run(args: ShellArgs): Promise<ToolResult> {
  return shell.run(args, t.ctx)
}

describe('shell', () => {
  it('streams stdout and stderr as they come, in order, and returns them with the exit code', async () => {
    t = makeContext()
    // The command waits for a file the subscriber creates when it sees the first line: it
    // ends only if that line was streamed while it ran.
    const go = join(t.workspace, 'go')
    t.ctx.progress = (chunk) => {
      t.progress.push(chunk)
      if (chunk.text.includes('out1')) writeFileSync(go, '')
    }
    const r = await run({
      command: `echo out1; echo err1 >&2; while [ ! -e ${go} ]; do sleep 0.02; done; echo out2; echo err2 >&2; exit 3`,
      timeout_seconds: 20,
    })
    assert.equal(r.outcome, 'ok')
    assert.equal(r.meta?.exit_code, 3)
    assert.equal(text(t.progress, 'stdout'), 'out1\nout2\n')
    assert.equal(text(t.progress, 'stderr'), 'err1\nerr2\n')
    // Merged in arrival order: each stream's lines keep their order (the two pipes may interleave).
    const at = (line: string) => r.output.indexOf(line)
    assert.ok(at('out1') < at('out2') && at('err1') < at('err2') && at('out1') < at('err2'), r.output)
    assert.match(r.output, /\[exit code 3\]$/)
  })

  it('decodes UTF-8 characters split across chunks', async () => {
    t = makeContext()
    // Each piece is printed once the one before reached the subscriber: three chunks.
    t.ctx.progress = (chunk) => {
      t.progress.push(chunk)
      writeFileSync(join(t.workspace, `seen${t.progress.length}`), '')
    }
    const wait = (n: number) => `while [ ! -e seen${n} ]; do sleep 0.02; done`
    const r = await run({
      command: `printf 'caf\\xc3'; ${wait(1)}; printf '\\xa9 \\xe2\\x82'; ${wait(2)}; printf '\\xac\\n'`,
      timeout_seconds: 20,
    })
    assert.equal(r.outcome, 'ok')
    assert.deepEqual(
      t.progress.map((p) => p.text),
      ['caf', 'é ', '€\n'],
    )
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
    // 5 s, not 1: on a loaded machine the sandbox and a login shell alone can take a second.
    const r = await run({ command: `echo before; sleep ${m} & sleep ${m}; echo never`, timeout_seconds: 5 })
    assert.equal(r.outcome, 'timeout')
    assert.match(r.output, /^before\n\[stopped: no end after 5 s\]$/)
    assert.ok(performance.now() - started < 30_000, 'did not wait for the sleeps')
    assert.deepEqual(processesWith(`sleep ${m}`), [])
  })

  it('stops the whole group on interrupt, partial output kept, even a child that ignores SIGTERM', async () => {
    t = makeContext()
    const m = marker()
    const pending = run({
      command: `echo partial; (trap '' TERM; sleep ${m}) & sleep ${m} & sleep ${m}`,
    })
    while (!text(t.progress).includes('partial') || sleepsOf(m).length < 3) await sleep(20)
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
    assert.ok(performance.now() - started < 30_000, 'did not wait for the background sleeps')
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
