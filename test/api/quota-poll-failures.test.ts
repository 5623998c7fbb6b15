// The quota poller in the real daemon when a poll cannot go well: a failed refresh and an
// account without a refresh token are recorded as auth failures, their credential kept; a
// missing HEARTH_USAGE_CORE is a logged driver failure with no fallback; a kill -9 during a
// poll loses and duplicates nothing, and the next start removes the call's folder; the
// drain kills the core in flight.
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { FakeClaudeAuth } from '../fakes/claude-auth.ts'
import { StandInCore, usageReport } from '../fakes/stand-in-core.ts'
import { logLines, startDaemon, type TestDaemon, tempHome, until } from '../helpers/daemon.ts'
import { chatgptAccount, creds, HOUR, readings, waitReadings, writeHome } from '../helpers/quota-poll.ts'
import { running } from '../inputs/helpers.ts'

describe('quota polling that cannot authenticate or run the core', () => {
  let claudeAuth: FakeClaudeAuth
  let d: TestDaemon
  const missing = '/nonexistent/usage-core'

  before(async () => {
    claudeAuth = await FakeClaudeAuth.start()
    const home = tempHome()
    writeHome(home, {
      creds: {
        accounts: {
          chatgpt: chatgptAccount(),
          claude: [
            // No refresh token, expired: kept, its auth failure recorded.
            {
              type: 'oauth',
              access: 'sk-ant-oat01-cat',
              expires: Date.now() - 1000,
              email: 'cat@example.test',
            },
            // A refresh token the endpoint refuses: kept, its auth failure recorded.
            {
              type: 'oauth',
              access: 'sk-ant-oat01-dan',
              refresh: 'sk-ant-ort01-revoked',
              expires: Date.now() - 1000,
              email: 'dan@example.test',
            },
          ],
        },
      },
    })
    d = await startDaemon({
      home,
      env: { HEARTH_USAGE_CORE: missing, HEARTH_CLAUDE_TOKEN_URL: claudeAuth.tokenUrl },
    })
  })
  after(async () => {
    await d?.stop()
    await claudeAuth.close()
  })

  it('a failed refresh and an account without a refresh token keep their credential; the failure is a reading', async () => {
    const rows = await waitReadings(
      d.home,
      'two auth failures',
      (r) => r.filter((x) => x.provider === 'claude').length === 2,
    )
    const failures = rows.filter((r) => r.provider === 'claude')
    assert.deepEqual(failures.map((r) => [r.account, r.limit_id]).sort(), [
      ['cat@example.test', ''],
      ['dan@example.test', ''],
    ])
    for (const r of failures) assert.match(r.error ?? '', /run \/login/)
    const stored = creds(d.home).accounts.claude
    assert.deepEqual(
      stored.map((c: any) => c.access),
      ['sk-ant-oat01-cat', 'sk-ant-oat01-dan'],
    )
    assert.equal(claudeAuth.tokenRequests.length, 1, 'only dan has a refresh token to try')
  })

  it('a missing HEARTH_USAGE_CORE is a logged driver failure: no reading, no fallback', async () => {
    const [line] = await until('the driver failure logged', () => {
      const lines = logLines(d.home, 'quota poll failed')
      return lines.length > 0 ? lines : undefined
    })
    assert.equal(line.level, 40)
    assert.equal(line.account, 'ann@example.test')
    assert.equal(line.reason, `HEARTH_USAGE_CORE ${missing} does not exist`)
    assert.deepEqual(
      readings(d.home).filter((r) => r.provider === 'codex'),
      [],
    )
  })
})

describe('a kill -9 during a poll', () => {
  let core: StandInCore
  let d: TestDaemon

  after(async () => {
    await d?.stop()
    core.release('codex', 0)
    core.close()
  })

  it('loses no recorded reading and duplicates none; the next start polls at once', async () => {
    core = new StandInCore()
    const report = usageReport('codex', { primary: [30, 300, Date.now() + HOUR] })
    core.script('codex', [{ stdout: report, block: true }, { stdout: report }])
    const home = tempHome()
    writeHome(home, {
      creds: {
        accounts: {
          chatgpt: chatgptAccount({ access: 'a', refresh: 'r', account_id: 'ws', user_id: undefined }),
        },
      },
    })
    const env = { HEARTH_USAGE_CORE: core.path }
    d = await startDaemon({ home, env })
    const [first] = await core.waitCalls(1, 'codex')
    await d.stop('SIGKILL')
    assert.ok(existsSync(first.cwd), 'the killed daemon could not remove the call’s folder')
    d = await startDaemon({ home, env })
    await core.waitCalls(2, 'codex')
    await until('the killed daemon’s folder swept', () => !existsSync(first.cwd))
    const rows = await waitReadings(home, 'the second start’s reading', (r) => r.length === 1)
    assert.equal(rows[0].used_percent, 30)
    core.release('codex', 0) // the orphaned call answers to nobody
    await d.stop()
    d = undefined as unknown as TestDaemon
    assert.equal(readings(home).length, 1)
  })
})

describe('the daemon’s drain during a poll', () => {
  it('kills the core in flight and removes its folder', async () => {
    const core = new StandInCore()
    core.script('codex', [{ stdout: usageReport('codex'), block: true, child: true }])
    const home = tempHome()
    writeHome(home, {
      creds: {
        accounts: {
          chatgpt: chatgptAccount({ access: 'a', refresh: 'r', account_id: 'ws', user_id: undefined }),
        },
      },
    })
    const d = await startDaemon({ home, env: { HEARTH_USAGE_CORE: core.path } })
    try {
      const [call] = await core.waitCalls(1, 'codex')
      assert.equal(await d.stop(), 0)
      assert.equal(existsSync(call.cwd), false)
      await until(
        'the core and its child gone',
        () => !running(call.pid) && !running(call.childPid!),
        5000,
        20,
      )
      assert.deepEqual(readings(home), [])
    } finally {
      await d.stop()
      core.close()
    }
  })
})
