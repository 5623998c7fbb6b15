// The `hearth` command: help, version, exit codes (0 ok, 1 error, 2 usage), status, and the
// launcher's Node version guard. Every case runs bin/hearth.mjs in its own process.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { pathToFileURL } from 'node:url'
import { BIN, ROOT, runCli, startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'
import { oldNode } from '../helpers/old-node.ts'

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
/** No daemon can be reached through this home, whatever the environment says. */
const noHome = { HEARTH_HOME: '' }

describe('help and version', { concurrency: true }, () => {
  for (const flag of ['--help', '-h', 'help']) {
    it(`${flag} prints usage and exits 0`, async () => {
      const r = await runCli([flag])
      assert.equal(r.code, 0, r.stderr)
      assert.match(r.stdout, /Usage:/)
      assert.match(r.stdout, /hearth daemon \[--home DIR\] \[--port N\] \[--host 127\.0\.0\.1\|::1\]/)
      assert.match(r.stdout, /hearth status/)
      assert.equal(r.stderr, '')
    })
  }

  it('daemon --help prints usage without starting a daemon', async () => {
    const home = join(tempHome(), 'h')
    const r = await runCli(['daemon', '--home', home, '--help'], {}, { timeoutMs: 10_000 })
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /Usage:/)
    assert.equal(existsSync(home), false)
  })

  it('runs `daemon` from the CLI bundle too (the launcher starts dist/daemon.mjs for it)', async () => {
    const cliBundle = join(ROOT, 'dist', 'hearth.mjs')
    const home = join(tempHome(), 'h')
    const help = await runCli(['daemon', '--home', home, '--help'], {}, { bin: cliBundle, timeoutMs: 10_000 })
    assert.equal(help.code, 0, help.stderr)
    assert.match(help.stdout, /Usage:/)
    const usage = await runCli(['daemon', '--port', 'abc'], {}, { bin: cliBundle, timeoutMs: 10_000 })
    assert.equal(usage.code, 2, usage.stderr)
    assert.match(usage.stderr, /--port must be 0 to 65535/)
    // The daemon's own bundle, started without the launcher (and without `daemon`), too.
    const direct = await runCli(['--home', home, '--help'], {}, { bin: join(ROOT, 'dist', 'daemon.mjs') })
    assert.equal(direct.code, 0, direct.stderr)
    assert.match(direct.stdout, /Usage:/)
    assert.equal(existsSync(home), false)
  })

  it('--version prints hearth <version>+g<commit> and exits 0', async () => {
    const r = await runCli(['--version'])
    assert.equal(r.code, 0, r.stderr)
    const m = /^hearth (\d+\.\d+\.\d+)\+g([0-9a-z]+)\n$/.exec(r.stdout)
    assert.ok(m, r.stdout)
    assert.equal(m[1], pkg.version)
    let head = 'unknown'
    try {
      head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT }).toString().trim()
    } catch {
      // not a git checkout: the bundle says gunknown
    }
    assert.ok(head.startsWith(m[2]), `commit ${m[2]} is HEAD (${head})`)
  })
})

describe('usage errors exit 2', { concurrency: true }, () => {
  const cases: [string, string[], RegExp][] = [
    ['an unknown command', ['frobnicate'], /unknown command frobnicate/],
    ['an unknown top-level option', ['--bogus'], /unknown option --bogus/],
    ['an unknown daemon flag', ['daemon', '--bogus'], /--bogus/],
    ['an unknown status flag', ['status', '--bogus'], /--bogus/],
    ['a stray daemon argument', ['daemon', 'extra'], /extra/],
    ['a non-numeric port', ['daemon', '--port', 'abc'], /--port must be 0 to 65535/],
    ['an empty port', ['daemon', '--port', ''], /--port must be 0 to 65535/],
    ['a port out of range', ['daemon', '--port', '70000'], /--port must be 0 to 65535/],
    ['a missing flag value', ['daemon', '--home'], /--home/],
    ['an empty home', ['status', '--home', ''], /--home needs a directory/],
  ]
  for (const [what, args, message] of cases) {
    it(`for ${what}`, async () => {
      const r = await runCli(args, noHome, { timeoutMs: 10_000 })
      assert.equal(r.code, 2, `${r.stdout}${r.stderr}`)
      assert.match(r.stderr, message)
      assert.match(r.stderr, /hearth --help/)
      assert.equal(r.stdout, '')
    })
  }
})

describe('status', () => {
  let d: TestDaemon
  before(async () => {
    d = await startDaemon()
  })
  after(async () => {
    await d.stop()
  })

  it('exits 1 on a home with no daemon, saying how to start one', async () => {
    const empty = tempHome()
    const r = await runCli(['status', '--home', empty], noHome)
    assert.equal(r.code, 1, r.stderr)
    assert.ok(r.stderr.includes(`no hearth daemon runs for ${empty}`), r.stderr)
    assert.ok(r.stderr.includes(`hearth daemon --home ${empty}`), r.stderr)
    assert.equal(r.stdout, '')
  })

  it('exits 1 when daemon.json names a daemon that is gone', async () => {
    const home = tempHome()
    // A daemon killed with SIGKILL leaves its daemon.json behind.
    const gone = await startDaemon()
    gone.proc.kill('SIGKILL')
    await gone.exited
    writeFileSync(join(home, 'token'), `${'A'.repeat(43)}\n`)
    writeFileSync(join(home, 'daemon.json'), readFileSync(join(gone.home, 'daemon.json')))
    const r = await runCli(['status', '--home', home], noHome)
    assert.equal(r.code, 1, r.stderr)
    assert.match(r.stderr, /does not answer \(ECONNREFUSED\)/)
    assert.ok(r.stderr.includes(`hearth daemon --home ${home}`), r.stderr)
  })

  it('exits 1 with the problem code when the token is wrong', async () => {
    const home = tempHome()
    writeFileSync(join(home, 'token'), `${'A'.repeat(43)}\n`)
    writeFileSync(join(home, 'daemon.json'), readFileSync(join(d.home, 'daemon.json')))
    const r = await runCli(['status', '--home', home], noHome)
    assert.equal(r.code, 1, r.stderr)
    assert.match(r.stderr, /^hearth: A valid bearer token is required: .*\(unauthorized\)\n$/)
  })

  it('prints the server resource of the running daemon and exits 0', async () => {
    const r = await runCli(['status', '--home', d.home], noHome)
    assert.equal(r.code, 0, r.stderr)
    const server = JSON.parse(r.stdout)
    const runtime = JSON.parse(readFileSync(join(d.home, 'daemon.json'), 'utf8'))
    assert.equal(server.instance_id, runtime.instance_id)
    assert.equal(server.protocol, 3)
    assert.equal(server.state, 'ready')
  })

  it('finds the daemon through HEARTH_HOME with no arguments', async () => {
    const r = await runCli([], { HEARTH_HOME: d.home })
    assert.equal(r.code, 0, r.stderr)
    assert.equal(
      JSON.parse(r.stdout).instance_id,
      JSON.parse(readFileSync(`${d.home}/daemon.json`, 'utf8')).instance_id,
    )
  })

  it('status through HEARTH_HOME too, and --home wins over it', async () => {
    assert.equal((await runCli(['status'], { HEARTH_HOME: d.home })).code, 0)
    const r = await runCli(['status', '--home', tempHome()], { HEARTH_HOME: d.home })
    assert.equal(r.code, 1)
  })
})

describe('launcher', () => {
  const node = oldNode()
  it('bin/hearth.mjs refuses Node < 24 with a clear message and exit 1 when no Node 24 is installed beside it', {
    skip: !node && 'no Node < 24 here',
  }, async () => {
    const version = execFileSync(node!, ['--version']).toString().trim()
    // A launcher with no node_modules beside it (with them, it runs on the pinned Node:
    // test/cli/install.test.ts).
    const dir = tempHome()
    mkdirSync(join(dir, 'bin'))
    copyFileSync(BIN, join(dir, 'bin', 'hearth.mjs'))
    const r = await runCli(['--version'], {}, { node, bin: join(dir, 'bin', 'hearth.mjs') })
    assert.equal(r.code, 1)
    assert.equal(r.stdout, '')
    assert.ok(r.stderr.includes(`hearth needs Node.js 24 or newer; this is ${version}.`), r.stderr)
    assert.match(r.stderr, /npm start/)
  })

  it('bin/hearth.mjs refuses a Node that reports version 20 (even after trying the pinned Node)', async () => {
    const fixture = pathToFileURL(join(import.meta.dirname, 'fixtures', 'pretend-node-20.mjs')).href
    const r = await runCli(['--version'], {
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${fixture}`.trim(),
    })
    assert.equal(r.code, 1)
    assert.equal(r.stdout, '')
    assert.ok(r.stderr.includes('hearth needs Node.js 24 or newer; this is v20.11.1.'), r.stderr)
  })

  it('bin/hearth.mjs says how to build a missing bundle', async () => {
    const dir = tempHome()
    mkdirSync(join(dir, 'bin'))
    copyFileSync(BIN, join(dir, 'bin', 'hearth.mjs'))
    const r = await runCli(['--version'], {}, { bin: join(dir, 'bin', 'hearth.mjs') })
    assert.equal(r.code, 1)
    assert.equal(
      r.stderr,
      `hearth: ${join(dir, 'dist', 'hearth.mjs')} is missing; build it with: npm run build\n`,
    )
  })

  it('bin/hearth.mjs checks the version before loading anything', () => {
    const src = readFileSync(BIN, 'utf8')
    assert.ok(src.indexOf('process.versions.node') < src.indexOf('import('), 'the guard comes first')
    assert.doesNotMatch(src, /^import /m, 'no static import runs before the guard')
  })
})
