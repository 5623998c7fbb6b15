// Coming back to a session from the command line, through bin/hearth.mjs against a real
// daemon whose profile is a fake upstream: `hearth -c` / `--continue` and `hearth chat
// --last` open the latest session of the directory, the line chat prints the command that
// continues it, a session's handle (the end of its id) names it when sessions of one day
// share the start of their ids, a chat left without a message leaves no session, and a
// first run without any profile says what to do.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdirSync, realpathSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { BIN, runCli, startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'
import { idle, message, putInput, type Setup, startWithUpstream, waitSession } from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'

const noHome = { HEARTH_HOME: '' }

/** Runs the CLI in `cwd` with `stdin` as its whole input. */
function runIn(cwd: string, args: string[], stdin: string) {
  const p = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: { ...process.env, ...noHome },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  p.stdin.end(stdin)
  let stdout = ''
  let stderr = ''
  p.stdout.on('data', (c) => {
    stdout += c
  })
  p.stderr.on('data', (c) => {
    stderr += c
  })
  const timer = setTimeout(() => p.kill('SIGKILL'), 20_000)
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((res) =>
    p.on('close', (code) => {
      clearTimeout(timer)
      res({ code, stdout, stderr })
    }),
  )
}

/** The texts of the messages a session holds, oldest first. */
async function messagesOf(s: Setup, id: string): Promise<string[]> {
  const r = await s.d.request({ method: 'GET', path: `/sessions/${id}/history?limit=200` })
  return (r.json() as { items: any[] }).items.filter((e) => e.kind === 'user').map((e) => e.content.text)
}

/** The ids of all sessions, newest activity first. */
async function sessionIds(d: TestDaemon): Promise<string[]> {
  const r = await d.request({ method: 'GET', path: '/sessions?scope=all&limit=200' })
  return (r.json() as { items: { id: string }[] }).items.map((s) => s.id)
}

/** A message sent and answered, which makes it the session's newest activity. */
async function talk(s: Setup, id: string, text: string): Promise<void> {
  const r = await putInput(s.d, id, message(text))
  assert.ok(r.status < 300, r.text())
  await waitSession(s.d, id, (x) => idle(x) && x.latest_answer !== null)
}

describe('resuming sessions from the command line', () => {
  let s: Setup
  let here: string
  let elsewhere: string
  before(async () => {
    s = await startWithUpstream()
    here = realpathSync(tempHome('hearth-here-'))
    elsewhere = realpathSync(tempHome('hearth-elsewhere-'))
    mkdirSync(here, { recursive: true })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })

  it('-c, --continue and chat --last open the latest session of this directory', async () => {
    const older = await createSession(s.d, { kind: 'new', workspace: here })
    const latest = await createSession(s.d, { kind: 'new', workspace: here })
    await talk(s, older, 'first')
    await talk(s, latest, 'second')
    // Newer still, but in another directory.
    const other = await createSession(s.d, { kind: 'new', workspace: elsewhere })
    await talk(s, other, 'third')
    const before = await sessionIds(s.d)
    for (const [flag, text] of [
      ['-c', 'by -c'],
      ['--continue', 'by --continue'],
    ]) {
      const r = await runIn(here, ['--home', s.d.home, flag], `${text}\n`)
      assert.equal(r.code, 0, r.stderr)
      assert.match(r.stdout, /Hello, world!/)
    }
    const last = await runIn(here, ['chat', '--last', '--home', s.d.home], 'by --last\n')
    assert.equal(last.code, 0, last.stderr)
    assert.deepEqual(await messagesOf(s, latest), ['second', 'by -c', 'by --continue', 'by --last'])
    assert.deepEqual(await messagesOf(s, older), ['first'])
    assert.deepEqual((await sessionIds(s.d)).sort(), before.sort(), 'no session was created')
    // --workspace names the directory instead of the current one.
    const there = await runIn(
      here,
      ['chat', '--last', '--workspace', elsewhere, '--home', s.d.home],
      'there\n',
    )
    assert.equal(there.code, 0, there.stderr)
    assert.deepEqual(await messagesOf(s, other), ['third', 'there'])
  })

  it('-c in a directory without a session says so and exits 1', async () => {
    const empty = realpathSync(tempHome('hearth-empty-'))
    const r = await runIn(empty, ['-c', '--home', s.d.home], 'hello\n')
    assert.equal(r.code, 1)
    assert.equal(r.stderr, `hearth: no session in ${empty} yet; hearth chat starts one there\n`)
    const both = await runIn(empty, ['chat', '0190', '--last', '--home', s.d.home], '')
    assert.equal(both.code, 2, both.stderr)
  })

  it('line chat prints the command that continues the session, and that command does', async () => {
    const first = await runIn(here, ['chat', '--home', s.d.home], 'remember this\n')
    assert.equal(first.code, 0, first.stderr)
    const id = /^> session ([0-9a-f-]{36}) /m.exec(first.stdout)?.[1]
    assert.ok(id, first.stdout)
    const resume = /^Continue this session with: (hearth chat (\S+))$/m.exec(first.stderr)
    assert.ok(resume, first.stderr)
    assert.equal(resume[2], id.slice(-6))
    const again = await runIn(elsewhere, [...resume[1].split(' ').slice(1), '--home', s.d.home], 'and this\n')
    assert.equal(again.code, 0, again.stderr)
    assert.deepEqual(await messagesOf(s, id), ['remember this', 'and this'])
    assert.ok(again.stderr.includes(resume[0]), again.stderr)
  })

  it('a chat left before its first message leaves no session', async () => {
    const before = await sessionIds(s.d)
    const r = await runIn(here, ['chat', '--home', s.d.home], '\n\n')
    assert.equal(r.code, 0, r.stderr)
    assert.doesNotMatch(r.stdout, /session/)
    assert.doesNotMatch(r.stderr, /Continue this session/)
    assert.deepEqual(await sessionIds(s.d), before)
  })

  it('a handle names one of two sessions of the same day; the shared start is ambiguous', async () => {
    // Two ids of the same millisecond: only their random ends differ.
    const a = await createSession(
      s.d,
      { kind: 'new', workspace: here },
      '01a22300-0000-7000-8000-0000003c9e2f',
    )
    const b = await createSession(
      s.d,
      { kind: 'new', workspace: here },
      '01a22300-0000-7000-8000-000000d41b07',
    )
    const table = await runCli(['sessions', '--home', s.d.home], noHome)
    assert.equal(table.code, 0, table.stderr)
    assert.match(table.stdout, new RegExp(`^3c9e2f .* ${a}$`, 'm'))
    assert.match(table.stdout, new RegExp(`^d41b07 .* ${b}$`, 'm'))
    for (const [handle, id] of [
      ['3c9e2f', a],
      ['D41B07', b],
      ['1b07', b],
    ]) {
      const shown = await runCli(['session', 'show', handle, '--home', s.d.home], noHome)
      assert.equal(shown.code, 0, shown.stderr)
      assert.match(shown.stdout, new RegExp(`^id +${id}$`, 'm'))
    }
    const sent = await runCli(['send', '3c9e2f', 'by handle', '--home', s.d.home], noHome)
    assert.equal(sent.code, 0, sent.stderr)
    assert.deepEqual(await messagesOf(s, a), ['by handle'])
    const shared = await runCli(['session', 'show', '01a22300', '--home', s.d.home], noHome)
    assert.equal(shared.code, 1)
    assert.match(shared.stderr, /^hearth: 01a22300 names more than one session; give more of it:\n/)
    assert.ok(shared.stderr.includes(`\n  3c9e2f  ${a}`) && shared.stderr.includes(`\n  d41b07  ${b}`))
  })
})

describe('a first run without a profile', () => {
  let d: TestDaemon
  before(async () => {
    d = await startDaemon()
  })
  after(async () => {
    await d.stop()
  })

  it('echo hi | hearth chat exits 1 naming hearth profile add, /login and --demo', async () => {
    const r = await runCli(['chat', '--workspace', d.home, '--home', d.home], noHome, { stdin: 'hi\n' })
    assert.equal(r.code, 1, r.stderr)
    assert.match(r.stdout, /^> session [0-9a-f-]{36} \(no profile yet\)\n/)
    assert.match(r.stderr, /hearth profile add/)
    assert.match(r.stderr, /\/login \(hearth login\)/)
    assert.match(r.stderr, /--demo/)
    assert.doesNotMatch(r.stderr, /""/)
  })
})

describe('hearth CMD --help', { concurrency: true }, () => {
  const cases: [string[], RegExp][] = [
    [['send', '--help'], /^Usage:\n {2}hearth send SESSION /],
    [['send', '0190', '-h'], /^Usage:\n {2}hearth send SESSION /],
    [['help', 'send'], /^Usage:\n {2}hearth send SESSION /],
    [['session', 'show', '--help'], /^Usage:\n {2}hearth session show ID [^\n]*\n {27}print a session/],
    [['session', '--help'], /^Usage:\n {2}hearth session new [\s\S]* {2}hearth session set /],
    [
      ['mcp', 'add', '--help'],
      /^Usage:\n {2}hearth mcp add NAME \[--env[\s\S]*\n {2}hearth mcp add NAME --url/,
    ],
    [
      ['work', 'set', '--help'],
      /^Usage:\n {2}hearth work set ID [^\n]*\n {2}hearth work done ID +change an item/,
    ],
    [['daemon', '--help'], /^Usage:\n {2}hearth daemon \[--home DIR\]/],
    [['chat', '--help'], /^Usage:\n {2}hearth chat \[SESSION \| --last\]/],
  ]
  for (const [args, text] of cases) {
    it(`hearth ${args.join(' ')}`, async () => {
      const r = await runCli(args, noHome, { timeoutMs: 10_000 })
      assert.equal(r.code, 0, r.stderr)
      assert.match(r.stdout, text)
      assert.match(r.stdout, /\nExit codes: 0 ok, 1 error, 2 usage\.\n$/)
      assert.doesNotMatch(r.stdout, /hearth status/, 'only that command')
    })
  }
})
