// Session ids by prefix, `hearth send` from standard input and its Ctrl-C, `hearth interrupt`,
// `hearth chat` on a session that is not there, and `hearth session show --history`, each
// run through bin/hearth.mjs against a real daemon whose profile is a fake upstream.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { BIN, runCli } from '../helpers/daemon.ts'
import {
  getSession,
  idle,
  message,
  putInput,
  type Setup,
  startWithUpstream,
  waitSession,
} from '../inputs/helpers.ts'
import { createSession, deleteLeaf } from '../streams/sse-client.ts'

const noHome = { HEARTH_HOME: '' }

/** A CLI process that keeps running, with its output so far. */
function start(args: string[]) {
  const p = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...noHome },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const out = { stdout: '', stderr: '' }
  p.stdout.on('data', (c) => {
    out.stdout += c
  })
  p.stderr.on('data', (c) => {
    out.stderr += c
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    p.on('close', (code, signal) => r({ code, signal })),
  )
  return { p, out, exited }
}

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`no ${what} within ${ms} ms`)
    await sleep(10)
  }
}

/** A run that streams for about 20 s unless interrupted. */
const slowScript = { text: ['first ', ...Array.from({ length: 40 }, () => 'more ')], delayMs: 500 }

describe('hearth session commands', () => {
  let s: Setup
  let home: string
  before(async () => {
    s = await startWithUpstream()
    home = s.d.home
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })

  it('a unique id prefix is accepted by show, send, set, interrupt, chat and watch', async () => {
    const id = await createSession(s.d, { kind: 'new', workspace: home, name: 'prefixed' })
    // The other sessions of this daemon share at most the timestamp part; the end is unique.
    const prefix = id.slice(0, 24)
    const show = await runCli(['session', 'show', prefix, '--home', home], noHome)
    assert.equal(show.code, 0, show.stderr)
    assert.match(show.stdout, new RegExp(`^id +${id}$`, 'm'))
    const sent = await runCli(['send', prefix.toUpperCase(), 'hi', '--home', home], noHome)
    assert.equal(sent.code, 0, sent.stderr)
    assert.equal(sent.stdout, 'Hello, world!\n')
    const set = await runCli(['session', 'set', prefix, '--model', 'other-model', '--home', home], noHome)
    assert.equal(set.code, 0, set.stderr)
    assert.equal((await getSession(s.d, id)).model, 'other-model')
    const stop = await runCli(['interrupt', prefix, '--home', home], noHome)
    assert.equal(stop.code, 0, stop.stderr)
    assert.equal(stop.stdout, 'nothing was running\n')
    const chat = await runCli(['chat', prefix, '--home', home], noHome, { stdin: 'again\n' })
    assert.equal(chat.code, 0, chat.stderr)
    assert.match(chat.stdout, /Hello, world!/)
    const watch = start(['session', 'watch', prefix, '--home', home])
    await until(() => watch.out.stdout.includes(' snapshot '), 'a snapshot line')
    watch.p.kill('SIGINT')
    assert.equal((await watch.exited).code, 0, watch.out.stderr)
  })

  it('an ambiguous prefix lists the candidates; an unknown one says so', async () => {
    const a = await createSession(
      s.d,
      { kind: 'new', workspace: home },
      '01900000-0000-7000-8000-00000000000a',
    )
    const b = await createSession(
      s.d,
      { kind: 'new', workspace: home },
      '01900000-0000-7000-8000-00000000000b',
    )
    const r = await runCli(['session', 'show', '01900000-0000', '--home', home], noHome)
    assert.equal(r.code, 1)
    assert.match(r.stderr, /^hearth: 01900000-0000 names more than one session; give more of it:\n/)
    assert.ok(r.stderr.includes(`\n  00000a  ${a}`) && r.stderr.includes(`\n  00000b  ${b}`), r.stderr)
    const one = await runCli(
      ['session', 'show', '01900000-0000-7000-8000-00000000000b', '--home', home],
      noHome,
    )
    assert.equal(one.code, 0, one.stderr)
    const none = await runCli(['session', 'show', 'fffff', '--home', home], noHome)
    assert.equal(none.code, 1)
    assert.equal(none.stderr, 'hearth: no session id starts or ends with fffff\n')
    const bad = await runCli(['session', 'show', 'xyz', '--home', home], noHome)
    assert.equal(bad.code, 2)
    assert.match(bad.stderr, /xyz is not a session id/)
  })

  it('send reads the message from standard input when no text is given', async () => {
    const sid = await createSession(s.d)
    const r = await runCli(['send', sid, '--home', home], noHome, { stdin: 'a message\nover two lines\n' })
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout, 'Hello, world!\n')
    assert.match(JSON.stringify(s.upstream.requests.at(-1)?.body.input), /a message\\nover two lines/)
    const empty = await runCli(['send', sid, '--home', home], noHome, { stdin: '' })
    assert.equal(empty.code, 2)
    assert.match(empty.stderr, /needs a message: TEXT\.\.\. or on standard input/)
  })

  it('Ctrl-C on send interrupts the run, then exits 130', async () => {
    const sid = await createSession(s.d)
    s.upstream.enqueue(slowScript)
    const cli = start(['send', sid, 'go', '--home', home])
    await until(() => cli.out.stdout.includes('first'), 'first words')
    cli.p.kill('SIGINT')
    const end = await cli.exited
    assert.equal(end.code, 130, cli.out.stderr)
    // The run ended as interrupted long before its 20 s of output.
    const after = await waitSession(s.d, sid, idle, 5000)
    const answer = after.history.items.find((e: any) => e.kind === 'assistant')
    assert.equal(answer.content.status, 'interrupted')
  })

  it('hearth interrupt stops the running run', async () => {
    const sid = await createSession(s.d)
    s.upstream.enqueue(slowScript)
    const put = await putInput(s.d, sid, message('go'))
    assert.ok(put.status < 300, put.text())
    const running = await waitSession(
      s.d,
      sid,
      (x) => x.status.phase === 'running' && x.status.run_id !== null,
    )
    // Interrupted once it streams, so the slow script is used up, not left for a later test.
    await until(() => s.upstream.pending === 0, 'the upstream request')
    const r = await runCli(['interrupt', sid, '--home', home], noHome)
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout, `interrupted run ${running.status.run_id}\n`)
    await waitSession(s.d, sid, idle, 5000)
  })

  it('chat on an unknown or deleted session fails at once, with standard input still open', async () => {
    const gone = await createSession(s.d)
    await deleteLeaf(s.d, gone)
    for (const [id, code] of [
      ['01900000-0000-7000-8000-0000000000ff', 'session_not_found'],
      [gone, 'session_deleted'],
    ]) {
      const cli = start(['chat', id, '--home', home])
      const timer = setTimeout(() => cli.p.kill('SIGKILL'), 10_000)
      const end = await cli.exited // stdin is never closed: a chat that waited would not end
      clearTimeout(timer)
      assert.equal(end.code, 1, cli.out.stderr)
      assert.match(cli.out.stderr, new RegExp(`\\(${code}\\)\\n$`))
      assert.equal(cli.out.stdout, '')
    }
  })

  it('session show --history prints the conversation; --json one entry per line', async () => {
    assert.equal(s.upstream.pending, 0, 'no script is left over from an earlier test')
    const sid = await createSession(s.d)
    s.upstream.enqueue({ text: ['Hi ', 'there.'] })
    assert.equal((await runCli(['send', sid, 'first question', '--home', home], noHome)).code, 0)
    s.upstream.failTimes(1, 401, { message: 'bad key' })
    assert.equal((await runCli(['send', sid, 'second question', '--home', home], noHome)).code, 1)
    const r = await runCli(['session', 'show', sid, '--history', '--home', home], noHome)
    assert.equal(r.code, 0, r.stderr)
    assert.match(
      r.stdout,
      /^you: first question\n\nassistant: Hi there\.\n\nyou: second question\n\nerror: .*\(upstream_unauthorized\)\n$/,
    )
    const json = await runCli(['session', 'show', sid, '--history', '--json', '--home', home], noHome)
    assert.equal(json.code, 0, json.stderr)
    const kinds = json.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l).kind)
      .filter((k) => k !== 'reasoning')
    assert.deepEqual(kinds, ['user', 'assistant', 'user', 'error'])
    const fresh = await createSession(s.d)
    const empty = await runCli(['session', 'show', fresh, '--history', '--home', home], noHome)
    assert.equal(empty.stdout, 'No messages yet.\n')
  })
})
