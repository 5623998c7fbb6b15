// The `hearth` command as a new user meets it: global options before the command, one
// wording for every usage error, the daemon saying where it listens, and error texts that
// point at commands that exist. Every case runs bin/hearth.mjs in its own process.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { BIN, pathWithThisNode, runCli, startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'
import { createSession } from '../streams/sse-client.ts'

/** No daemon can be reached through this home, whatever the environment says. */
const noHome = { HEARTH_HOME: '' }

describe('global options before the command', () => {
  let d: TestDaemon
  before(async () => {
    d = await startDaemon()
  })
  after(async () => {
    await d.stop()
  })

  it('--home DIR and --home=DIR before the command name the home', async () => {
    const id = await createSession(d, { kind: 'new', workspace: d.home })
    for (const args of [
      ['--home', d.home, 'sessions'],
      [`--home=${d.home}`, 'sessions'],
    ]) {
      const r = await runCli(args, noHome)
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`)
      assert.ok(r.stdout.includes(id), r.stdout)
    }
    const show = await runCli(['--home', d.home, 'session', 'show', id], noHome)
    assert.equal(show.code, 0, show.stderr)
    assert.match(show.stdout, new RegExp(`^id +${id}$`, 'm'))
    // The command's own --home wins over the global one.
    const own = await runCli(['--home', d.home, 'status', '--home', tempHome()], noHome)
    assert.equal(own.code, 1, own.stderr)
    assert.match(own.stderr, /no hearth daemon runs for/)
  })

  it('hearth --home DIR daemon starts the daemon in DIR', async () => {
    const home = join(tempHome(), 'h')
    const p = spawn(BIN, ['--home', home, 'daemon', '--port', '0'], {
      env: { ...process.env, PATH: pathWithThisNode(), HEARTH_HOME: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const exited = new Promise((r) => p.on('exit', r))
    let stdout = ''
    p.stdout.on('data', (c) => {
      stdout += c
    })
    const deadline = Date.now() + 15_000
    while (!stdout.includes('listening') && Date.now() < deadline) await sleep(10)
    const runtime = JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8'))
    assert.equal(runtime.pid, p.pid)
    p.kill('SIGTERM')
    assert.equal(await exited, 0)
  })
})

describe('every usage error has one wording', { concurrency: true }, () => {
  const cases: [string[], string][] = [
    [['--bogus'], 'unknown option --bogus'],
    [['sessions', '--bogus'], 'unknown option --bogus'],
    [['session', 'show', '0190', '--bogus'], 'unknown option --bogus'],
    [['session', '--bogus'], 'unknown option --bogus'],
    [['profile', '--bogus'], 'unknown option --bogus'],
    [['profile', 'list', '-x'], 'unknown option -x'],
    [['daemon', '--bogus'], 'unknown option --bogus'],
    [['--home', '/tmp/x', '--bogus'], 'unknown option --bogus'],
    [['sessions', '--home'], 'option --home needs a value'],
    [['--home'], 'option --home needs a value'],
    [['status', '--help=yes'], 'option --help takes no value'],
    [['status', 'extra'], 'unexpected argument extra'],
  ]
  for (const [args, message] of cases) {
    it(`hearth ${args.join(' ')}`, async () => {
      const r = await runCli(args, noHome, { timeoutMs: 10_000 })
      assert.equal(r.code, 2, `${r.stdout}${r.stderr}`)
      assert.equal(r.stderr, `hearth: ${message}\nRun hearth --help for usage.\n`)
      assert.equal(r.stdout, '')
    })
  }
})

/** Starts `hearth daemon` with its standard output captured. */
function daemonWithStdout(home: string, extra: string[] = []) {
  const p = spawn(BIN, ['daemon', '--home', home, '--port', '0', ...extra], {
    env: { ...process.env, PATH: pathWithThisNode(), HEARTH_HOME: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const out = { stdout: '', stderr: '' }
  p.stdout.on('data', (c) => {
    out.stdout += c
  })
  p.stderr.on('data', (c) => {
    out.stderr += c
  })
  const exited = new Promise<number | null>((r) => p.on('close', r))
  return { p, out, exited }
}

async function waitForFile(path: string): Promise<any> {
  const deadline = Date.now() + 15_000
  for (;;) {
    try {
      return JSON.parse(readFileSync(path, 'utf8'))
    } catch {
      if (Date.now() > deadline) throw new Error(`${path} never appeared`)
      await sleep(10)
    }
  }
}

describe('the daemon says where it listens', () => {
  it('one line on start (URL, home, pid) once daemon.json is written, one on a clean stop', async () => {
    const home = tempHome()
    const { p, out, exited } = daemonWithStdout(home)
    const runtime = await waitForFile(join(home, 'daemon.json'))
    const deadline = Date.now() + 5000
    while (!out.stdout.includes('\n') && Date.now() < deadline) await sleep(10)
    assert.equal(out.stdout, `hearth daemon listening on ${runtime.url} (home ${home}, pid ${p.pid})\n`)
    p.kill('SIGINT')
    assert.equal(await exited, 0, out.stderr)
    assert.equal(
      out.stdout,
      `hearth daemon listening on ${runtime.url} (home ${home}, pid ${p.pid})\n` +
        `hearth daemon stopped (home ${home}, pid ${p.pid})\n`,
    )
  })

  it('--quiet prints neither line', async () => {
    const home = tempHome()
    const { p, out, exited } = daemonWithStdout(home, ['--quiet'])
    // The line would be printed just after daemon.json is written, in the same turn.
    await waitForFile(join(home, 'daemon.json'))
    p.kill('SIGTERM')
    assert.equal(await exited, 0, out.stderr)
    assert.equal(out.stdout, '')
  })
})

describe('error texts point at commands that exist', () => {
  let d: TestDaemon
  before(async () => {
    const home = tempHome()
    mkdirSync(home, { recursive: true })
    // A ChatGPT subscription profile with no account signed in: a turn fails signed_out.
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        providers: {
          default_profile: 'sub',
          profiles: {
            sub: { extension: 'chatgpt', endpoint: 'http://127.0.0.1:9/', model: 'gpt-5.1-codex' },
          },
        },
      }),
    )
    d = await startDaemon({ home })
  })
  after(async () => {
    await d.stop()
  })

  it('a signed-out provider says hearth login <provider>, not /login', async () => {
    const sid = await createSession(d, { kind: 'new', workspace: d.home })
    const r = await runCli(['send', sid, 'hello', '--home', d.home], noHome)
    assert.equal(r.code, 1)
    assert.match(r.stderr, /\(signed_out\)/)
    assert.match(r.stderr, /run: hearth login chatgpt/)
    assert.doesNotMatch(r.stderr, /\/login/)
  })

  it('a refused token says which home and token file to check, not an HTTP header', async () => {
    const home = tempHome()
    writeFileSync(join(home, 'token'), `${'A'.repeat(43)}\n`)
    writeFileSync(join(home, 'daemon.json'), readFileSync(join(d.home, 'daemon.json')))
    const r = await runCli(['status', '--home', home], noHome)
    assert.equal(r.code, 1, r.stderr)
    assert.doesNotMatch(r.stderr, /Authorization|Bearer/)
    assert.ok(r.stderr.includes(`does not accept ${home}/token`), r.stderr)
    assert.ok(r.stderr.includes('--home (or HEARTH_HOME)'), r.stderr)
    assert.match(r.stderr, /\(unauthorized\)\n$/)
  })

  it('a missing token file with a running daemon says so', async () => {
    const token = join(d.home, 'token')
    renameSync(token, `${token}.away`)
    try {
      const r = await runCli(['sessions', '--home', d.home], noHome)
      assert.equal(r.code, 1, r.stderr)
      assert.ok(r.stderr.includes(`a hearth daemon runs for ${d.home} (pid ${d.proc.pid}`), r.stderr)
      assert.ok(r.stderr.includes(`${token} is missing`), r.stderr)
      assert.doesNotMatch(r.stderr, /no hearth daemon runs/)
    } finally {
      renameSync(`${token}.away`, token)
    }
  })
})
