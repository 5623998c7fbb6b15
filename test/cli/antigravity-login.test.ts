// `hearth login antigravity` against a daemon whose Google is the fake: the policy is
// printed before the sign-in starts, and an account that needs verification ends the
// command with the verification page to open.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { after, before, describe, it } from 'node:test'
import { FakeAntigravityBackend, VERIFY_URL } from '../fakes/antigravity-backend.ts'
import { BIN, startDaemon, type TestDaemon } from '../helpers/daemon.ts'

describe('hearth login antigravity', () => {
  let fake: FakeAntigravityBackend
  let d: TestDaemon
  before(async () => {
    fake = await FakeAntigravityBackend.start()
    d = await startDaemon({
      env: {
        HEARTH_ANTIGRAVITY_TOKEN_URL: fake.tokenUrl,
        HEARTH_ANTIGRAVITY_BASE_URL: fake.url,
        HEARTH_ANTIGRAVITY_VERSION: '1.0.0',
      },
    })
  })
  after(async () => {
    await d.stop()
    await fake.close()
  })

  it('states the policy first; a verification-required account fails with its page', async () => {
    const child = spawn(process.execPath, [BIN, 'login', 'antigravity', '--manual', '--home', d.home], {
      env: { ...process.env, HEARTH_NO_BROWSER: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stderr.on('data', (c) => {
      stderr += c
    })
    const url = await new Promise<URL>((resolve, reject) => {
      child.stdout.on('data', (c) => {
        stdout += c
        const m = /(https:\/\/accounts\.google\.com\/o\/oauth2\/v2\/auth\S+)/.exec(stdout)
        if (m) resolve(new URL(m[1]))
      })
      child.once('exit', () => reject(new Error(`exited early: ${stdout} ${stderr}`)))
    })
    const policy = stdout.indexOf('terms forbid')
    assert.ok(policy >= 0 && policy < stdout.indexOf(url.toString()), stdout)
    assert.match(stdout.slice(0, stdout.indexOf(url.toString())), /vertex/i)
    const code = fake.authorize(
      { email: 'new@example.com', project: null, verify: 'tier' },
      url.searchParams.get('code_challenge') as string,
      url.searchParams.get('redirect_uri') as string,
    )
    child.stdin.write(`${code}#${url.searchParams.get('state')}\n`)
    const exit = await new Promise<number | null>((r) => child.once('exit', r))
    assert.equal(exit, 1, stdout)
    assert.match(stderr, /verification_required/)
    assert.ok(stdout.includes(VERIFY_URL), stdout)
    assert.equal(stdout.includes(code), false, 'the code is never echoed')
  })
})
