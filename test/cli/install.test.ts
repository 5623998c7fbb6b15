// hearth installed as a command (`npm link`, `npm install -g .`): the global bin is a
// symlink to bin/hearth.mjs through a symlinked package folder, started from any directory
// by whatever `node` comes first on PATH, which may be older than 24. And `npm ci` on such a
// Node installs without a wall of engine warnings.
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs'
import { delimiter, dirname, join } from 'node:path'
import { describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { ROOT, tempHome } from '../helpers/daemon.ts'
import { oldNode } from '../helpers/old-node.ts'

const old = oldNode()
/** The Node an installed `hearth` finds on PATH: an old one when this machine has it. */
const pathNode = old ?? process.execPath

/** What `npm link` makes: PREFIX/lib/node_modules/hearth -> the project, PREFIX/bin/hearth -> its bin. */
function linkedInstall(): string {
  const prefix = tempHome('hearth-prefix-')
  mkdirSync(join(prefix, 'lib', 'node_modules'), { recursive: true })
  mkdirSync(join(prefix, 'bin'))
  symlinkSync(ROOT, join(prefix, 'lib', 'node_modules', 'hearth'), 'dir')
  symlinkSync('../lib/node_modules/hearth/bin/hearth.mjs', join(prefix, 'bin', 'hearth'))
  return join(prefix, 'bin', 'hearth')
}

/** An environment like a user's shell: PATH with the installed bin and pathNode, nothing of npm's. */
function userEnv(bin: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_|^HEARTH_|^NODE_OPTIONS$/i.test(k)) env[k] = v
  env.PATH = [dirname(bin), dirname(pathNode), '/usr/bin', '/bin'].join(delimiter)
  return { ...env, ...extra }
}

function run(bin: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const p = spawn(bin, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  return collect(p)
}

function collect(p: ChildProcess) {
  const out = { stdout: '', stderr: '' }
  p.stdout?.on('data', (c) => {
    out.stdout += c
  })
  p.stderr?.on('data', (c) => {
    out.stderr += c
  })
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((r) =>
    p.on('close', (code) => r({ code, ...out })),
  )
  return { p, out, done }
}

describe('an installed hearth', () => {
  it(`works through symlinks from another directory with ${old ? `an old Node (${old})` : 'this Node'} on PATH`, async () => {
    const bin = linkedInstall()
    const cwd = tempHome('hearth-elsewhere-')
    const env = userEnv(bin)
    const version = await run(bin, ['--version'], cwd, env).done
    assert.equal(version.code, 0, version.stderr)
    assert.match(version.stdout, /^hearth \d+\.\d+\.\d+\+g[0-9a-z]+\n$/)
    const usage = await run(bin, ['frobnicate'], cwd, env).done
    assert.equal(usage.code, 2)
    assert.match(usage.stderr, /unknown command frobnicate/)
  })

  it('runs a daemon that a signal to the command stops cleanly', async () => {
    const bin = linkedInstall()
    const home = join(tempHome(), 'h')
    const daemon = collect(
      spawn(bin, ['daemon', '--home', home, '--port', '0'], {
        cwd: tempHome('hearth-elsewhere-'),
        env: userEnv(bin),
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    )
    const deadline = Date.now() + 15_000
    while (!existsSync(join(home, 'daemon.json')) || !daemon.out.stdout.includes('listening')) {
      assert.ok(Date.now() < deadline, `no daemon.json: ${daemon.out.stderr}`)
      await sleep(20)
    }
    const runtime = JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8'))
    const status = await run(bin, ['--home', home, 'status'], tempHome(), userEnv(bin)).done
    assert.equal(status.code, 0, status.stderr)
    assert.equal(JSON.parse(status.stdout).instance_id, runtime.instance_id)
    daemon.p.kill('SIGTERM') // the command's pid, as a supervisor or `kill` would
    const end = await daemon.done
    assert.equal(end.code, 0, end.stderr)
    assert.match(end.stdout, /hearth daemon stopped/)
    assert.equal(existsSync(join(home, 'daemon.json')), false)
  })
})

describe('npm ci', () => {
  const npm = old && join(dirname(old), 'npm')
  it('on a Node older than the pinned one prints no engine warnings', {
    skip: !(npm && existsSync(npm)) && 'no Node < 24 with npm here',
  }, async () => {
    // A dry run reads the same lock file and checks the same engines, without installing.
    const dir = tempHome('hearth-npm-ci-')
    for (const f of ['package.json', 'package-lock.json', '.npmrc'])
      if (existsSync(join(ROOT, f))) copyFileSync(join(ROOT, f), join(dir, f))
    const r = await run(
      npm!,
      ['ci', '--dry-run', '--ignore-scripts', '--offline', '--no-audit', '--no-fund'],
      dir,
      userEnv(npm!),
    ).done
    assert.equal(r.code, 0, r.stderr)
    assert.doesNotMatch(`${r.stdout}${r.stderr}`, /EBADENGINE|Unsupported engine/)
    assert.doesNotMatch(r.stderr, /npm warn/)
  })
})
