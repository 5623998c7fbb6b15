// The warm sandbox, on real bwrap and bash: a session's commands share one sandbox (its pid
// namespace, its /tmp) and two sessions never do; a command whose mounts would differ (a
// hidden path or a `.git` that appeared since) gets a new one, so confinement is what a
// sandbox of its own would give; a timeout or an interrupt stops the command's group and not
// the sandbox; the sandbox ends when idle, when the session closes, when its spawner dies
// (the command fails, the next one gets a new sandbox) and with a kernel killed outright.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { sandboxStatus } from '../../../src/tools/exec/sandbox.ts'
import { ShellSession } from '../../../src/tools/exec/session.ts'
import { createShellTool } from '../../../src/tools/exec/shell.ts'
import type { SandboxPolicy, ToolResult } from '../../../src/tools/types.ts'
import { until } from '../../helpers/daemon.ts'
import { ISOLATED, makeContext, marker, processesWith, sleepsOf, type TestContext, text } from './helpers.ts'

let t: TestContext
afterEach(() => t?.cleanup())

const shell = () => createShellTool({ home: join(t.root, 'home') })
const run = (command: string, extra: { timeout_seconds?: number } = {}): Promise<ToolResult> =>
  shell().run({ command, ...extra }, t.ctx)
const NS = 'readlink /proc/self/ns/pid'
const nsOf = (r: ToolResult) => /pid:\[\d+\]/.exec(r.output)?.[0]

describe('the warm sandbox', {
  skip: !sandboxStatus().available && `no sandbox: ${sandboxStatus().reason}`,
}, () => {
  it("a session's commands share it (pid namespace, /tmp); another session has its own", async () => {
    t = makeContext(ISOLATED)
    const first = await run(`${NS}; echo kept > /tmp/note`)
    const second = await run(`${NS}; cat /tmp/note`)
    assert.equal(first.meta?.sandbox, 'bubblewrap')
    assert.ok(nsOf(first))
    assert.equal(nsOf(second), nsOf(first))
    assert.match(second.output, /^kept$/m)
    // Not the kernel's namespace.
    assert.notEqual(nsOf(first), (await import('node:fs')).readlinkSync('/proc/self/ns/pid'))

    const mine = t.ctx.shell
    t.ctx.shell = new ShellSession({ home: join(t.root, 'home') })
    try {
      const other = await run(`${NS}; cat /tmp/note || echo no-note`)
      assert.notEqual(nsOf(other), nsOf(first))
      assert.match(other.output, /no-note/)
    } finally {
      t.ctx.shell.close()
      t.ctx.shell = mine
    }
  })

  it('a hidden path created after it started is hidden from the next command (a new sandbox)', async () => {
    t = makeContext(ISOLATED)
    const secret = join(t.workspace, 'later-secret')
    t.ctx.sandbox = { ...ISOLATED, hidden: [secret] } as SandboxPolicy
    const before = await run(NS)
    mkdirSync(secret)
    writeFileSync(join(secret, 'key'), 'LATER-SECRET-VALUE\n')
    const after = await run(`${NS}; cat ${secret}/key; ls -A ${secret} | wc -l`)
    assert.ok(!after.output.includes('LATER-SECRET-VALUE'), after.output)
    assert.match(after.output, /^0$/m)
    assert.notEqual(nsOf(after), nsOf(before))
    // The one it replaced ended with its last command.
    await until('the old sandbox gone', () => (t.ctx.shell?.sandboxes === 1 ? true : undefined), 5000)
  })

  it('a .git a command creates is read-only to the next command, unless git writes are allowed', async () => {
    t = makeContext(ISOLATED)
    const made = await run('mkdir -p .git/hooks && echo "[core]" > .git/config && echo made')
    assert.match(made.output, /^made$/m)
    const hook = await run('echo "touch /tmp/pwned" > .git/hooks/pre-commit && echo written')
    assert.match(hook.output, /Read-only file system/)
    assert.doesNotMatch(hook.output, /^written$/m)
    t.ctx.sandbox = { ...ISOLATED, gitWritable: true }
    const allowed = await run('echo "touch /tmp/pwned" > .git/hooks/pre-commit && echo written')
    assert.match(allowed.output, /^written$/m)
  })

  it('a timeout and an interrupt stop the command, not the sandbox: the next command runs there', async () => {
    t = makeContext(ISOLATED)
    const before = await run(NS)
    const m = marker()
    const timedOut = await run(`echo started; (trap '' TERM; sleep ${m}) & sleep ${m}`, {
      timeout_seconds: 1,
    })
    assert.equal(timedOut.outcome, 'timeout')
    assert.match(timedOut.output, /^started\n\[stopped: no end after 1 s\]$/)
    assert.deepEqual(processesWith(`sleep ${m}`), [])
    assert.equal(nsOf(await run(NS)), nsOf(before))

    const m2 = marker()
    const pending = run(`echo partial; sleep ${m2}`)
    await until(
      'the sleep',
      () => (text(t.progress).includes('partial') && sleepsOf(m2).length === 1) || undefined,
    )
    t.abort.abort()
    const interrupted = await pending
    assert.equal(interrupted.outcome, 'interrupted')
    assert.equal(interrupted.meta?.signal, 'SIGTERM')
    assert.equal(interrupted.meta?.exit_code, 143)
    assert.deepEqual(processesWith(`sleep ${m2}`), [])
    t.abort = new AbortController()
    t.ctx.signal = t.abort.signal
    const next = await run(`${NS}; exit 143`)
    assert.equal(nsOf(next), nsOf(before))
    assert.equal(next.meta?.exit_code, 143)
    assert.equal(next.meta?.signal, null, 'an exit code is not a signal')
  })

  it("gives a command the session's environment as it is (the spawner's own settings stay its own)", async () => {
    t = makeContext(ISOLATED)
    t.ctx.shell = new ShellSession({
      home: join(t.root, 'home'),
      env: {
        ...process.env,
        LC_ALL: 'C.UTF-8',
        HEARTH_WARM_TEST: 'x',
        WARM_TEST_VALUE: 'kept',
        command: 'mine',
        p: 'mine',
      },
    })
    try {
      const r = await run(
        'echo "$LC_ALL $WARM_TEST_VALUE $' +
          '{HEARTH_WARM_TEST-gone} $command $p"; declare -F _hs_child _hs_runner || echo no-spawner-functions',
      )
      assert.match(r.output, /^C\.UTF-8 kept gone mine mine$/m)
      assert.match(r.output, /^no-spawner-functions$/m)
    } finally {
      t.ctx.shell.close()
    }
  })

  it('runs a long command (past what it sends inline) as it is', async () => {
    t = makeContext(ISOLATED)
    const body = 'x'.repeat(50_000)
    const r = await run(`wc -c <<'EOF'\n${body}\nEOF\necho "tail's end"`)
    assert.equal(r.output, `${body.length + 1}\ntail's end\n[exit code 0]`)
  })

  it('a command leaves nothing behind, even what left its group (setsid)', async () => {
    t = makeContext(ISOLATED)
    const [a, b] = [marker(), marker()]
    const r = await run(`sleep ${a} & setsid sleep ${b} >/dev/null 2>&1 & echo started`)
    assert.match(r.output, /^started$/m)
    await until(
      'both sleeps gone',
      () => processesWith(`sleep ${a}`).length + processesWith(`sleep ${b}`).length === 0 || undefined,
      10_000,
    )
  })

  it('ends after its idle time and when the session closes; the next command starts another', async () => {
    t = makeContext(ISOLATED)
    t.ctx.shell = new ShellSession({ home: join(t.root, 'home'), sandboxIdleMs: 200 })
    const first = await run(NS)
    assert.equal(t.ctx.shell.sandboxes, 1)
    await until('idle end', () => (t.ctx.shell?.sandboxes === 0 ? true : undefined), 5000)
    const second = await run(NS)
    assert.notEqual(nsOf(second), nsOf(first))
    t.ctx.shell.close()
    assert.equal(t.ctx.shell.sandboxes, 0)
  })

  it('a spawner that dies fails its command cleanly; the next command gets a new sandbox', async () => {
    t = makeContext(ISOLATED)
    const before = await run(NS)
    // The spawner is pid 2 of the sandbox.
    const killed = await run('kill -KILL 2; sleep 5; echo never')
    assert.equal(killed.outcome, 'error')
    assert.match(killed.output, /sandbox ended/)
    const after = await run(NS)
    assert.equal(after.outcome, 'ok')
    assert.notEqual(nsOf(after), nsOf(before))
  })

  it('dies with the kernel: SIGKILL of the process that started it leaves no command', async () => {
    t = makeContext(ISOLATED)
    const m = marker()
    const script = join(t.root, 'kernel.ts')
    const src = (f: string) => JSON.stringify(join(import.meta.dirname, '../../../src/tools/exec', f))
    writeFileSync(
      script,
      `import { startCommand } from ${src('process.ts')}
import { ShellSession } from ${src('session.ts')}
const where = { cwd: ${JSON.stringify(t.workspace)}, policy: { isolate: true, network: false }, writableRoots: [${JSON.stringify(t.workspace)}] }
const shell = new ShellSession()
startCommand({ command: 'echo started; sleep ${m} & setsid sleep ${m}', ...where, shell, onOutput: (_s, b) => process.stdout.write(b) })`,
    )
    const kernel = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] })
    await new Promise((resolve) => kernel.stdout.once('data', resolve))
    await until('the sleeps', () => (sleepsOf(m).length === 2 ? true : undefined), 10_000)
    kernel.kill('SIGKILL')
    await until(
      'the sleeps gone',
      () => (processesWith(`sleep ${m}`).length === 0 ? true : undefined),
      10_000,
    )
    await sleep(0)
  })
})
