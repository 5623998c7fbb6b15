// Commands in bubblewrap (installed by .ci/run): the workspace is writable and nothing else,
// the network is off unless the policy allows it (a server of this process on loopback is
// out of reach), hearth's home is hidden, the kernel's processes are out of sight, and a
// stopped or finished command leaves nothing behind. Without bwrap the status says why.
import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { probeSandbox, sandboxStatus, wrap } from '../../../src/tools/exec/sandbox.ts'
import { createShellTool } from '../../../src/tools/exec/shell.ts'
import { until as pollUntil } from '../../helpers/daemon.ts'
import {
  DIRECT,
  ISOLATED,
  makeContext,
  marker,
  processesWith,
  sleepsOf,
  type TestContext,
  text,
} from './helpers.ts'

let t: TestContext
afterEach(() => t?.cleanup())

const bwrapInstalled = (() => {
  try {
    execFileSync('sh', ['-c', 'command -v bwrap'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})()

describe('sandbox status', () => {
  it('says why there is no sandbox when bwrap is missing', () => {
    const probe = probeSandbox(null)
    assert.deepEqual(probe.status, {
      available: false,
      kind: null,
      reason: 'bwrap (bubblewrap) is not on PATH',
    })
    const broken = probeSandbox('/bin/false')
    assert.equal(broken.status.available, false)
    assert.match(broken.status.reason ?? '', /bwrap refused/)
  })

  it('is available where bwrap is installed (the CI installs it)', (tc) => {
    if (!bwrapInstalled) return tc.skip('bwrap is not installed here')
    assert.deepEqual(sandboxStatus(), { available: true, kind: 'bubblewrap', reason: null })
  })

  it("gives bwrap's own words when it refuses (user namespaces denied), probed either way", () => {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-fake-bwrap-'))
    try {
      const fake = join(dir, 'bwrap')
      writeFileSync(fake, '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n', {
        mode: 0o755,
      })
      const sandboxTs = join(import.meta.dirname, '../../../src/tools/exec/sandbox.ts')
      const script = `const m = await import(${JSON.stringify(sandboxTs)})
console.log(JSON.stringify([await m.sandboxStatusAsync(), m.probeSandbox().status]))`
      const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        env: { ...process.env, PATH: dir },
      })
      const expected = {
        available: false,
        kind: null,
        reason: 'bwrap refused to build the sandbox: bwrap: No permissions to create new namespace',
      }
      assert.deepEqual(JSON.parse(out.toString()), [expected, expected])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('is the same when probed without blocking (a fresh process, so nothing cached)', () => {
    const sandboxTs = join(import.meta.dirname, '../../../src/tools/exec/sandbox.ts')
    const out = execFileSync(process.execPath, [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(sandboxTs)}); console.log(JSON.stringify(await m.sandboxStatusAsync()))`,
    ])
    assert.deepEqual(JSON.parse(out.toString()), sandboxStatus())
  })

  it('runs a command as it is when the policy does not isolate', () => {
    assert.deepEqual(wrap(['bash', '-lc', 'true'], { cwd: '/', policy: DIRECT, writableRoots: [] }), [
      'bash',
      '-lc',
      'true',
    ])
  })
})

describe('commands in the sandbox', {
  skip: !sandboxStatus().available && `no sandbox: ${sandboxStatus().reason}`,
}, () => {
  const shell = () => createShellTool({ home: join(t.root, 'home') })
  before(() => assert.ok(sandboxStatus().available))

  it('writes inside the workspace and nowhere else', async () => {
    t = makeContext(ISOLATED)
    const outside = join(t.root, 'outside')
    mkdirSync(outside)
    const r = await shell().run(
      {
        command: `echo in > inside.txt && echo ok-inside; echo out > ${outside}/x.txt || echo refused-outside; touch /usr/hearth-x 2>/dev/null || echo refused-usr`,
      },
      t.ctx,
    )
    assert.equal(r.meta?.sandbox, 'bubblewrap')
    assert.match(r.output, /ok-inside\n/)
    assert.match(r.output, /refused-outside\n/)
    assert.match(r.output, /refused-usr\n/)
    assert.equal(readFileSync(join(t.workspace, 'inside.txt'), 'utf8'), 'in\n')
    assert.equal(existsSync(join(outside, 'x.txt')), false)
  })

  for (const [where, place] of [
    ['inside the workspace', (t: TestContext) => join(t.workspace, '.hearth')],
    ['outside /tmp', () => mkdtempSync('/var/tmp/hearth-exec-home-')],
  ] as const) {
    it(`hides hearth's home (${where}): a planted token cannot be read`, async () => {
      t = makeContext(ISOLATED)
      const home = place(t)
      mkdirSync(home, { recursive: true })
      try {
        writeFileSync(join(home, 'token'), 'the-daemon-token\n', { mode: 0o600 })
        writeFileSync(join(home, 'creds.json'), '{"secret":"creds"}\n', { mode: 0o600 })
        const command = `ls -A ${home}; cat ${home}/token ${home}/creds.json`
        const hidden = await createShellTool({ home }).run({ command }, t.ctx)
        assert.equal(hidden.meta?.sandbox, 'bubblewrap')
        assert.ok(!hidden.output.includes('the-daemon-token'), hidden.output)
        assert.ok(!hidden.output.includes('"creds"'), hidden.output)
        assert.match(hidden.output, /No such file/)
        // The same sandbox told of another home shows it: the mask is what hides it.
        const shown = await createShellTool({ home: join(t.root, 'elsewhere') }).run({ command }, t.ctx)
        assert.match(shown.output, /the-daemon-token/)
      } finally {
        rmSync(home, { recursive: true, force: true })
      }
    })
  }

  it('has no network by default: a server of this process on loopback is out of reach', async () => {
    t = makeContext(ISOLATED)
    const connections: number[] = []
    const server: Server = createServer((s) => {
      connections.push(1)
      s.on('error', () => {})
      s.end('hello\n')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as { port: number }).port
    const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected || echo refused`
    try {
      const off = await shell().run({ command: probe }, t.ctx)
      assert.match(off.output, /refused/)
      assert.equal(connections.length, 0)
      const on = await shell().run(
        { command: probe },
        { ...t.ctx, sandbox: { isolate: true, network: true } },
      )
      assert.match(on.output, /connected/)
      assert.equal(on.meta?.sandbox, 'bubblewrap')
    } finally {
      server.close()
    }
  })

  it("sees only its own processes, not the kernel's (nor its environment)", async () => {
    t = makeContext(ISOLATED)
    const r = await shell().run(
      {
        command: `echo count=$(ls /proc | grep -c '^[0-9]'); test -e /proc/${process.pid}/environ && echo visible`,
      },
      t.ctx,
    )
    assert.ok(Number(/count=(\d+)/.exec(r.output)?.[1]) < 10, r.output)
    assert.ok(!r.output.includes('visible'))
  })

  it("gets a /tmp of the sandbox's own: only the workspace is bound into it", async () => {
    t = makeContext(ISOLATED)
    writeFileSync(join(t.root, 'planted'), 'outside the workspace')
    const planted = join(tmpdir(), `hearth-planted-${process.pid}`)
    writeFileSync(planted, 'in the real /tmp')
    try {
      const r = await shell().run(
        {
          command: `echo root=$(ls -A ${t.root}); test -e ${planted} && echo planted-visible; echo > /tmp/hearth-new-${process.pid}`,
        },
        t.ctx,
      )
      assert.match(r.output, /^root=ws$/m)
      assert.doesNotMatch(r.output, /planted-visible/)
      assert.equal(r.meta?.exit_code, 0, 'the fresh /tmp is writable')
      assert.equal(existsSync(join(tmpdir(), `hearth-new-${process.pid}`)), false)
    } finally {
      rmSync(planted, { force: true })
    }
  })

  it('stops the whole sandbox on interrupt and leaves nothing when a command ends', async () => {
    t = makeContext(ISOLATED)
    const m = marker()
    const pending = shell().run({ command: `echo partial; (trap '' TERM; sleep ${m}) & sleep ${m}` }, t.ctx)
    while (!text(t.progress).includes('partial') || sleepsOf(m).length < 2) await sleep(20)
    t.abort.abort()
    const r = await pending
    assert.equal(r.outcome, 'interrupted')
    assert.match(r.output, /partial\n\[stopped: interrupted\]$/)
    assert.deepEqual(processesWith(`sleep ${m}`), [])

    const m2 = marker()
    t.abort = new AbortController()
    const ended = await shell().run(
      { command: `sleep ${m2} & echo started` },
      { ...t.ctx, signal: t.abort.signal },
    )
    assert.equal(ended.outcome, 'ok')
    assert.deepEqual(processesWith(`sleep ${m2}`), [])
  })

  it('takes down even a process that left the group (setsid): the pid namespace ends with the command', async () => {
    t = makeContext(ISOLATED)
    const m = marker()
    const r = await shell().run({ command: `setsid sleep ${m} >/dev/null 2>&1 & echo started` }, t.ctx)
    assert.equal(r.outcome, 'ok')
    // Its own run was 300 s: gone within the wait, it was taken down.
    await pollUntil('the detached sleep gone', () => processesWith(`sleep ${m}`).length === 0, 10_000)
  })

  it('reports exit codes through bwrap', async () => {
    t = makeContext(ISOLATED)
    const r = await shell().run({ command: 'exit 42' }, t.ctx)
    assert.equal(r.meta?.exit_code, 42)
  })

  it('runs jobs in the sandbox too, and stops them whole', async () => {
    t = makeContext(ISOLATED)
    const m = marker()
    const job = t.jobs.start(
      `echo sandboxed > inside.txt; touch ${t.root}/escaped; echo ready; sleep ${m} & sleep ${m}`,
      {
        cwd: t.workspace,
        sandbox: ISOLATED,
        allowedRoots: [],
        runId: 'run-1',
      },
    )
    while (!t.jobs.read(job.id, 0, 1000)?.text.includes('ready')) await sleep(20)
    assert.equal(readFileSync(join(t.workspace, 'inside.txt'), 'utf8'), 'sandboxed\n')
    assert.equal(existsSync(join(t.root, 'escaped')), false)
    const stopped = await t.jobs.stop(job.id)
    assert.equal(stopped?.state, 'stopped')
    assert.deepEqual(processesWith(`sleep ${m}`), [])
  })

  it('dies with the kernel: SIGKILL of the process that started it leaves nothing', async () => {
    t = makeContext(ISOLATED)
    const m = marker()
    const script = join(t.root, 'kernel.ts')
    const processTs = join(import.meta.dirname, '../../../src/tools/exec/process.ts')
    writeFileSync(
      script,
      `import { startCommand } from ${JSON.stringify(processTs)}
startCommand({ command: 'sleep ${m} & sleep ${m}', cwd: ${JSON.stringify(t.workspace)}, policy: { isolate: true, network: false }, writableRoots: [${JSON.stringify(t.workspace)}] })
console.log('started')`,
    )
    const kernel = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] })
    await new Promise((resolve) => kernel.stdout.once('data', resolve))
    await until(() => sleepsOf(m).length === 2)
    kernel.kill('SIGKILL')
    await until(() => processesWith(`sleep ${m}`).length === 0)
  })
})

async function until(f: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!f()) {
    if (Date.now() > deadline) throw new Error('timed out')
    await sleep(20)
  }
}
