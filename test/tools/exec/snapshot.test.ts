// The login shell's snapshot, on real bash with a temp HOME whose profile the test writes:
// what the profile sets up (variables, functions, aliases, options) reaches commands, a
// secret it exports does not, it runs once per session (shell calls and jobs alike), its
// file is private and goes with the session, and a profile that hangs leaves the session on
// a login shell per command after the (short, injected) timeout.
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { jobStartTool } from '../../../src/tools/exec/job-tools.ts'
import { sandboxStatus } from '../../../src/tools/exec/sandbox.ts'
import { ShellSession } from '../../../src/tools/exec/session.ts'
import { createShellTool } from '../../../src/tools/exec/shell.ts'
import type { JobInfo } from '../../../src/tools/types.ts'
import { until } from '../../helpers/daemon.ts'
import { DIRECT, ISOLATED, makeContext, type TestContext } from './helpers.ts'

let t: TestContext
let home: string
beforeEach(() => {
  // Outside /tmp: the sandbox's /tmp is its own, and the profile must be readable there.
  home = mkdtempSync('/var/tmp/hearth-profile-home-')
})
afterEach(async () => {
  await t?.cleanup()
  rmSync(home, { recursive: true, force: true })
})

const PROFILE_SECRET = 'sk-profile-secret-value'

/** A profile that counts its runs in the workspace and sets up one of each thing. */
function writeProfile(extra = ''): string {
  const runs = join(t.workspace, 'profile-runs')
  writeFileSync(
    join(home, '.bash_profile'),
    [
      `echo run >> ${runs}`,
      'echo "welcome, said the profile"',
      extra,
      'export PROFILE_VAR="from the profile"',
      `export OPENAI_API_KEY=${PROFILE_SECRET}`,
      `export MY_SERVICE_TOKEN=${PROFILE_SECRET}`,
      `export DATABASE_URL=postgres://me:${PROFILE_SECRET}@db/x`,
      'greet() { echo "hello from a profile function, $1"; }',
      'alias ll="ls -l"',
      'shopt -s expand_aliases',
      'source ~/.bashrc',
    ].join('\n'),
  )
  writeFileSync(join(home, '.bashrc'), 'export FROM_BASHRC=yes\nset -o pipefail\n')
  return runs
}

function session(opts: { captureTimeoutMs?: number; notices?: string[] } = {}): ShellSession {
  const shell = new ShellSession({
    home: join(t.root, 'home'),
    env: { ...process.env, HOME: home },
    captureTimeoutMs: opts.captureTimeoutMs,
    onNotice: (m) => opts.notices?.push(m),
  })
  t.ctx.shell = shell
  return shell
}

const runsOf = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).length

for (const [name, policy] of [
  ['directly', DIRECT],
  ['in the sandbox', ISOLATED],
] as const) {
  describe(`the login shell's snapshot, ${name}`, {
    skip: policy.isolate && !sandboxStatus().available && `no sandbox: ${sandboxStatus().reason}`,
  }, () => {
    it('gives commands what the profile set up, but not the secrets it exports', async () => {
      t = makeContext(policy)
      writeProfile()
      session()
      const r = await createShellTool().run(
        {
          command: [
            'echo "var=$PROFILE_VAR bashrc=$FROM_BASHRC"',
            'greet you',
            'type ll',
            'shopt -o pipefail',
            'echo "db=$DATABASE_URL"',
            'env',
            'echo "bash_env=$' + '{BASH_ENV-unset}"',
            'bash -c \'echo "nested: $(type -t greet || echo none)"\'',
          ].join('; '),
        },
        t.ctx,
      )
      assert.equal(r.outcome, 'ok', r.output)
      assert.match(r.output, /^var=from the profile bashrc=yes$/m)
      assert.match(r.output, /^hello from a profile function, you$/m)
      assert.match(r.output, /ll is aliased to `ls -l'/)
      assert.match(r.output, /^pipefail\s+on$/m)
      assert.match(r.output, /^db=postgres:\/\/me@db\/x$/m)
      assert.ok(!r.output.includes(PROFILE_SECRET), r.output)
      assert.doesNotMatch(r.output, /OPENAI_API_KEY|MY_SERVICE_TOKEN/)
      assert.doesNotMatch(r.output, /welcome, said the profile/, 'what the profile prints is not replayed')
      // A script the command runs does not replay the snapshot.
      assert.match(r.output, /^bash_env=unset$/m)
      assert.match(r.output, /^nested: none$/m)
      assert.equal(r.meta?.sandbox, policy.isolate ? 'bubblewrap' : 'none')
    })

    it('runs the profile once per session: shell calls and jobs replay it', async () => {
      t = makeContext(policy)
      const runs = writeProfile()
      const shell = session()
      shell.prepare({ cwd: t.workspace, policy, writableRoots: [t.workspace] })
      for (let i = 0; i < 3; i++) {
        const r = await createShellTool().run({ command: 'echo "$PROFILE_VAR"' }, t.ctx)
        assert.match(r.output, /^from the profile$/m)
      }
      const started = await jobStartTool.run({ command: 'greet job' }, t.ctx)
      const id = (started.meta as { job: JobInfo }).job.id
      const out = await until('the job done', () => {
        const o = t.jobs.read(id, 0, 1000)
        return o?.state === 'exited' ? o : undefined
      })
      assert.equal(out.text, 'hello from a profile function, job\n')
      assert.equal(runsOf(runs), 1)

      // Another session runs it again.
      shell.close()
      session()
      await createShellTool().run({ command: 'true' }, t.ctx)
      assert.equal(runsOf(runs), 2)
    })
  })
}

describe("the snapshot's file", () => {
  it('is private, outside the workspace and home, and goes when the session closes', async () => {
    t = makeContext(DIRECT)
    writeProfile()
    const shell = session()
    const r = await createShellTool().run({ command: 'echo "$BASH_ENV"' }, t.ctx)
    // BASH_ENV is unset by the replay, so the command sees none; the session knows the file.
    assert.equal(r.output, '\n[exit code 0]')
    const snap = await shell.snapshot({ cwd: t.workspace, policy: DIRECT, writableRoots: [t.workspace] })
    assert.ok(snap)
    assert.equal(statSync(snap.dir).mode & 0o777, 0o700)
    assert.equal(statSync(snap.file).mode & 0o777, 0o600)
    assert.ok(snap.dir.startsWith(tmpdir()))
    assert.ok(!snap.dir.startsWith(t.workspace) && !snap.dir.startsWith(home))
    assert.ok(!readFileSync(snap.file, 'utf8').includes(PROFILE_SECRET))
    shell.close()
    assert.throws(() => statSync(snap.dir), /ENOENT/)
  })
})

describe('directories left by a kernel killed outright', () => {
  it('are removed by the next kernel that takes a snapshot; a live kernel keeps its own', async () => {
    t = makeContext(DIRECT)
    const dead = spawnSync('true').pid as number
    const stale = mkdtempSync(join(tmpdir(), `hearth-shell-${dead}-`))
    const live = mkdtempSync(join(tmpdir(), `hearth-shell-${process.pid}-`))
    try {
      const sessionTs = JSON.stringify(join(import.meta.dirname, '../../../src/tools/exec/session.ts'))
      const where = JSON.stringify({ cwd: t.workspace, policy: DIRECT, writableRoots: [t.workspace] })
      const script = `const { ShellSession } = await import(${sessionTs})
const s = new ShellSession(); console.log(JSON.stringify(await s.snapshot(${where}) !== null)); s.close()`
      const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        env: { ...process.env, HOME: home },
      })
      assert.equal(out.toString().trim(), 'true')
      assert.equal(existsSync(stale), false)
      assert.equal(existsSync(live), true)
    } finally {
      rmSync(stale, { recursive: true, force: true })
      rmSync(live, { recursive: true, force: true })
    }
  })
})

describe('a profile that hangs', () => {
  it('leaves the session on a login shell per command after the timeout, said once', async () => {
    t = makeContext(DIRECT)
    // The first run hangs (the capture's); the login shells after it do not.
    const runs = writeProfile(
      `[ "$(wc -l < ${join('$HOME', 'hung')} 2>/dev/null)" ] || { echo >> ~/hung; sleep 60; }`,
    )
    const notices: string[] = []
    session({ captureTimeoutMs: 500, notices })
    const first = await createShellTool().run({ command: 'echo "$PROFILE_VAR"; greet x' }, t.ctx)
    assert.equal(first.outcome, 'ok')
    assert.match(first.output, /^from the profile$/m)
    assert.match(first.output, /^hello from a profile function, x$/m)
    const second = await createShellTool().run({ command: 'echo again' }, t.ctx)
    assert.match(second.output, /^again$/m)
    assert.equal(notices.length, 1)
    assert.match(notices[0], /took over 500 ms/)
    // The hung capture plus a login shell for each command.
    assert.equal(runsOf(runs), 3)
  })
})
