// The usage core's driver with a real child process (the stand-in core): what it is handed
// (only the hand-off and the basics, files 0600 in a 0700 folder removed afterwards in every
// outcome), how its output is read (a report with or without an error is a report; no
// parseable report is a driver failure), the timeout that kills its process group, the
// drain, and HEARTH_USAGE_CORE naming a path that is not there: a failure, no fallback.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { chatgpt } from '../../src/providers/chatgpt/descriptor.ts'
import { claude } from '../../src/providers/claude/descriptor.ts'
import type { CoreHandoff } from '../../src/providers/descriptor.ts'
import {
  type CoreCall,
  coreCommand,
  type DriverResult,
  runCore,
  sweepLeftovers,
} from '../../src/quota/driver.ts'
import { errorReport, StandInCore, usageReport } from '../fakes/stand-in-core.ts'
import { until } from '../helpers/daemon.ts'

const ACCESS = 'eyJhbGciOiJSUzI1NiJ9.access-token-for-the-core'
const REFRESH = 'rt_refresh-token-never-handed-over'
const DAEMON_ENV = {
  PATH: process.env.PATH ?? '',
  HOME: '/home/someone',
  LANG: 'C.UTF-8',
  HEARTH_TOKEN: 'daemon-token-secret',
  HEARTH_HOME: '/tmp/some-home',
  HEARTH_CHATGPT_USAGE_URL: 'http://127.0.0.1:1/usage',
  HEARTH_ANTIGRAVITY_BASE_URL: 'http://127.0.0.1:2',
  OPENAI_API_KEY: 'sk-other-secret',
}
const credential = {
  access: ACCESS,
  refresh: REFRESH,
  expires: Date.now() + 3_600_000,
  account_id: 'ws-123',
  email: 'ann@example.test',
}
const codexHandoff = (dir: string): CoreHandoff => chatgpt.quota!.handoff!(credential, dir)

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('the usage core driver', () => {
  let core: StandInCore
  before(() => {
    core = new StandInCore()
  })
  after(() => core.close())

  const run = (feed: string, extra: Partial<CoreCall> = {}): Promise<DriverResult> =>
    runCore({
      core: coreCommand({ HEARTH_USAGE_CORE: core.path }),
      feed,
      handoff: codexHandoff,
      env: DAEMON_ENV,
      ...extra,
    })
  const lastCall = (feed: string) => core.calls(feed).at(-1)!

  it('hands over the access token and public facts only, and reads the report', async () => {
    const report = usageReport('codex', { primary: [12, 300, Date.now() + 3_600_000], plan: 'plus' })
    core.script('codex', [{ stdout: report }])
    const r = await run('codex')
    assert.equal(r.kind, 'report')
    assert.equal(r.kind === 'report' && r.report.usage?.primary?.usedPercent, 12)
    const call = lastCall('codex')
    assert.deepEqual(call.argv, ['usage', '--provider', 'codex', '--format', 'json'])
    assert.deepEqual(Object.keys(call.env).sort(), [
      'CODEX_HOME',
      'HEARTH_ANTIGRAVITY_BASE_URL',
      'HEARTH_CHATGPT_USAGE_URL',
      'HOME',
      'LANG',
      'PATH',
    ])
    assert.deepEqual(JSON.parse(call.files.authJson!), {
      tokens: { access_token: ACCESS, refresh_token: '', account_id: 'ws-123' },
      last_refresh: JSON.parse(call.files.authJson!).last_refresh,
    })
    assert.ok(
      Date.now() - Date.parse(JSON.parse(call.files.authJson!).last_refresh) < 60_000,
      'a fresh last_refresh',
    )
    assert.equal(call.files.authMode, 0o600)
    assert.equal(call.files.homeMode, 0o700)
    const seen = JSON.stringify(call)
    for (const secret of [REFRESH, 'daemon-token-secret', 'sk-other-secret'])
      assert.ok(!seen.includes(secret))
    assert.equal(existsSync(call.cwd), false, 'the private folder is removed')
  })

  it('takes the feed’s report from an array', async () => {
    core.script('claude', [
      { stdout: [usageReport('codex'), usageReport('claude', { primary: [40, 300, Date.now()] })] },
    ])
    const r = await run('claude', { handoff: (dir) => claude.quota!.handoff!(credential, dir) })
    assert.equal(r.kind === 'report' && r.report.provider, 'claude')
    assert.equal(r.kind === 'report' && r.report.usage?.primary?.usedPercent, 40)
    const env = lastCall('claude').env
    assert.equal(env.CODEXBAR_CLAUDE_OAUTH_TOKEN, ACCESS)
    assert.equal(env.CODEXBAR_CLAUDE_OAUTH_SCOPES, 'user:profile')
  })

  it('a provider failure with a non-zero exit is a report carrying the error', async () => {
    core.script('codex', [{ stdout: errorReport('codex', 'HTTP 401 from the usage endpoint'), exit: 1 }])
    const r = await run('codex')
    assert.equal(r.kind, 'report')
    assert.equal(r.kind === 'report' && r.report.error?.message, 'HTTP 401 from the usage endpoint')
    assert.equal(existsSync(lastCall('codex').cwd), false)
  })

  const failures: [string, object, RegExp][] = [
    ['garbage', { stdout: 'Traceback: not json', exit: 0 }, /printed no JSON/],
    ['nothing', { stdout: '', exit: 3 }, /printed nothing.*exit code 3/],
    ['a crash without a report', { crash: 'SIGSEGV' }, /killed by SIGSEGV/],
    ['another feed’s report only', { stdout: usageReport('claude') }, /no report for codex/],
    [
      'a report that does not parse',
      { stdout: { provider: 'codex', usage: { primary: { usedPercent: 'x' } } } },
      /does not parse/,
    ],
  ]
  for (const [what, step, reason] of failures) {
    it(`${what} is a driver failure`, async () => {
      core.script('codex', [step])
      const r = await run('codex')
      assert.equal(r.kind, 'driver_failure')
      assert.match(r.kind === 'driver_failure' ? r.reason : '', reason)
      assert.equal(existsSync(lastCall('codex').cwd), false)
    })
  }

  it('a failure’s reason never carries the hand-off’s secrets', async () => {
    core.script('codex', [{ stderr: `auth failed for ${ACCESS}\n`, exit: 1 }])
    const r = await run('codex')
    assert.equal(r.kind, 'driver_failure')
    const reason = r.kind === 'driver_failure' ? r.reason : ''
    assert.match(reason, /auth failed for \[redacted\]/)
    assert.ok(!reason.includes(ACCESS))
  })

  it('a timeout kills the core’s process group and removes its folder', async () => {
    core.script('codex', [{ child: true, block: true }])
    const r = await run('codex', { timeoutMs: 500 })
    assert.equal(r.kind, 'driver_failure')
    assert.match(r.kind === 'driver_failure' ? r.reason : '', /timed out/)
    const call = lastCall('codex')
    assert.equal(existsSync(call.cwd), false)
    await until('the core and its child gone', () => !alive(call.pid) && !alive(call.childPid!), 5000, 20)
  })

  it('the drain kills the core at once and removes its folder', async () => {
    core.script('codex', [{ child: true, block: true }])
    const stop = new AbortController()
    const before = core.calls('codex').length
    const pending = run('codex', { signal: stop.signal })
    const [call] = (await core.waitCalls(before + 1, 'codex')).slice(-1)
    assert.ok(existsSync(call.cwd))
    stop.abort()
    assert.equal(existsSync(call.cwd), false, 'removed as the drain starts')
    const r = await pending
    assert.deepEqual(r, { kind: 'driver_failure', reason: 'stopped' })
    await until('the core and its child gone', () => !alive(call.pid) && !alive(call.childPid!), 5000, 20)
  })

  it('HEARTH_USAGE_CORE naming a missing path is a driver failure, never the built-in core', async () => {
    const missing = join(core.dir, 'no-such-core')
    const command = coreCommand({ HEARTH_USAGE_CORE: missing })
    assert.deepEqual(command, { command: missing, args: [], override: true })
    const r = await runCore({ core: command, feed: 'codex', handoff: codexHandoff, env: DAEMON_ENV })
    assert.deepEqual(r, { kind: 'driver_failure', reason: `HEARTH_USAGE_CORE ${missing} does not exist` })
  })

  it('HEARTH_USAGE_CORE naming a file that cannot run is a driver failure', async () => {
    const plain = join(core.dir, 'not-executable')
    writeFileSync(plain, '#!/bin/sh\necho {}\n')
    chmodSync(plain, 0o644)
    const r = await runCore({
      core: coreCommand({ HEARTH_USAGE_CORE: plain }),
      feed: 'codex',
      handoff: codexHandoff,
      env: DAEMON_ENV,
    })
    assert.deepEqual(r, { kind: 'driver_failure', reason: `HEARTH_USAGE_CORE ${plain} is not executable` })
  })

  it('a start sweeps the folders of a daemon that is gone, and only those', () => {
    const root = mkdtempSync(join(tmpdir(), 'sweep-'))
    const dead = spawnSync('true').pid as number
    const names = [
      `hearth-quota-${dead}-abc`,
      `hearth-quota-${process.ppid}-def`,
      `hearth-quota-${process.pid}-ghi`,
      'other',
    ]
    for (const n of names) mkdirSync(join(root, n))
    sweepLeftovers(root)
    assert.deepEqual(readdirSync(root).sort(), names.slice(1).sort())
    rmSync(root, { recursive: true })
  })

  it('without HEARTH_USAGE_CORE the built-in core runs under this Node', () => {
    const command = coreCommand({})
    assert.equal(command.command, process.execPath)
    assert.match(command.args[0], /usage-core\.mjs$/)
    assert.equal(command.override, false)
  })
})
