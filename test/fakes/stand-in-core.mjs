#!/usr/bin/env node
// A stand-in usage core: a real executable answering `usage --provider <feed> --format json`
// as CodexBar's CLI does (a report on stdout, an exit code), scripted per test.
//
// Its folder is STAND_IN_CORE_DIR (the wrapper stand-in-core.ts writes sets it, so the core
// needs nothing from the daemon's environment). There:
// - script.json: `{ "<feed>": [step, …] }`; call n of a feed plays step n (the last one
//   again once they run out). A step: `stdout` (a string printed as it is, or JSON printed
//   with JSON.stringify), `stderr`, `exit` (code, default 0), `crash` (a signal it kills
//   itself with), `block` (waits until `release-<feed>-<n>` appears in the folder),
//   `child` (starts a grandchild `sleep` in its process group first, its pid recorded).
// - calls.jsonl: one line per call, written before anything else: argv, the environment
//   (without what the wrapper's shell adds), cwd, the files of the hand-off (CODEX_HOME/auth.json with
//   its mode and its folder's), the process group.
import { spawn } from 'node:child_process'
import { appendFileSync, existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'

const dir = process.env.STAND_IN_CORE_DIR
if (!dir) {
  process.stderr.write('stand-in core: STAND_IN_CORE_DIR is not set\n')
  process.exit(1)
}
const env = { ...process.env }
// Set by the wrapper (STAND_IN_CORE_DIR) and by its shell (PWD, SHLVL, _), not by the daemon.
for (const name of ['STAND_IN_CORE_DIR', 'PWD', 'SHLVL', '_']) delete env[name]
const feed = process.argv[process.argv.indexOf('--provider') + 1] ?? ''

function handoffFiles() {
  const codexHome = process.env.CODEX_HOME
  if (!codexHome) return {}
  const path = join(codexHome, 'auth.json')
  if (!existsSync(path)) return { codexHome }
  return {
    codexHome,
    authJson: readFileSync(path, 'utf8'),
    authMode: statSync(path).mode & 0o777,
    homeMode: statSync(codexHome).mode & 0o777,
  }
}

const calls = join(dir, 'calls.jsonl')
const index = existsSync(calls)
  ? readFileSync(calls, 'utf8')
      .split('\n')
      .filter((l) => l && JSON.parse(l).feed === feed).length
  : 0
const script = existsSync(join(dir, 'script.json'))
  ? JSON.parse(readFileSync(join(dir, 'script.json'), 'utf8'))
  : {}
const steps = script[feed] ?? []
const step = steps[Math.min(index, steps.length - 1)] ?? { stdout: '', exit: 1 }

let childPid = null
if (step.child) {
  const child = spawn('sleep', ['300'], { stdio: 'ignore' })
  childPid = child.pid
}
appendFileSync(
  calls,
  `${JSON.stringify({ feed, index, argv: process.argv.slice(2), env, cwd: process.cwd(), pid: process.pid, childPid, files: handoffFiles() })}\n`,
)

async function main() {
  if (step.block) {
    const release = join(dir, `release-${feed}-${index}`)
    while (!existsSync(release)) await new Promise((r) => setTimeout(r, 20))
  }
  if (step.stderr) process.stderr.write(step.stderr)
  if (step.stdout !== undefined)
    process.stdout.write(typeof step.stdout === 'string' ? step.stdout : JSON.stringify(step.stdout))
  if (step.crash) {
    process.stdout.write('', () => process.kill(process.pid, step.crash))
    return
  }
  process.stdout.write('', () => process.exit(step.exit ?? 0))
}
main()
