// Approvals in the full-screen client, end to end: tmux runs `hearth` on a session of a real
// daemon whose fake upstream calls write, edit and shell; the tests answer with keys, from
// another client (an approval input over HTTP) or not at all (the run ends), and read the
// screen, the workspace and what reached the model.
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { HearthClient } from '../../src/client/client.ts'
import { ApprovalBlock } from '../../src/tui/blocks.ts'
import { SessionLink } from '../../src/tui/session-link.ts'
import { makeTheme } from '../../src/tui/theme.ts'
import { Transcript } from '../../src/tui/transcript.ts'
import { answer, callTools } from '../fakes/tool-script.ts'
import { BIN } from '../helpers/daemon.ts'
import { Tmux } from '../helpers/tmux.ts'
import { getSession, idle, putInput, type Setup, startWithUpstream, waitSession } from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'

const ready = (screen: string) => /idle · .*fake-model/.test(screen) && screen.includes('──────')
const asking = (screen: string) => /allow\? y allow · n deny · a always/.test(screen)
/** The screen with its wrapped lines joined, for matching text that may wrap. */
const flat = (screen: string) => screen.replace(/\s+/g, ' ')

describe('approvals in the full-screen client', () => {
  let s: Setup
  const terminals: Tmux[] = []

  /** A session in a workspace of its own, open in a terminal. */
  async function openSession(columns = 100, rows = 40) {
    const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-tui-approve-')))
    const id = await createSession(s.d, { kind: 'new', workspace })
    const t = Tmux.start([process.execPath, BIN, '--home', s.d.home, 'chat', id], {
      columns,
      rows,
      cwd: workspace,
    })
    terminals.push(t)
    await t.waitFor(ready, 'the prompt')
    return { t, id, workspace }
  }
  const send = (t: Tmux, text: string) => {
    t.type(text)
    t.keys('Enter')
  }
  /** The fake upstream's requests whose input holds `text`. */
  const requestsWith = (text: string) =>
    s.upstream.requests.filter((r) => JSON.stringify(r.body.input).includes(text))

  before(async () => {
    s = await startWithUpstream()
  })
  after(async () => {
    for (const t of terminals) t.kill()
    await s.d.stop()
    await s.upstream.close()
  })

  it('Esc denies the open approval; the next keys are text, and a second approval is answered', async () => {
    const { t, id, workspace } = await openSession()
    s.upstream.enqueue(
      callTools({ name: 'write', arguments: { path: 'esc.txt', content: 'never\n' } }),
      answer('Not written.'),
    )
    send(t, 'write esc.txt')
    await t.waitFor(asking, 'the approval')
    t.keys('Escape')
    let screen = await t.waitFor((x) => x.includes('Not written.') && ready(x), 'the turn to go on denied')
    assert.match(screen, /^ {4}denied$/m)
    assert.doesNotMatch(screen, /allow\? y/, 'the question is gone')
    assert.equal(existsSync(join(workspace, 'esc.txt')), false)
    assert.equal((await getSession(s.d, id)).status.phase, 'idle')

    // Typed text reaches the model whole: no key is taken by the answered question.
    send(t, 'no thanks')
    await t.waitFor((x) => x.includes('Hello, world!'), 'the reply to the message')
    assert.equal(requestsWith('no thanks').length, 1)
    assert.equal(requestsWith('"o thanks').length, 0)

    // A second approval in the same client is answered with its own id.
    s.upstream.enqueue(
      callTools({ name: 'write', arguments: { path: 'second.txt', content: 'second\n' } }),
      answer('Second written.'),
    )
    send(t, 'write second.txt')
    await t.waitFor((x) => asking(x) && x.includes('second.txt'), 'the second approval')
    t.type('y')
    screen = await t.waitFor((x) => x.includes('Second written.') && ready(x), 'the second write')
    assert.equal(readFileSync(join(workspace, 'second.txt'), 'utf8'), 'second\n')
    assert.match(screen, /^ {4}allowed$/m)
  })

  it('an approval whose run ended (an interrupt from elsewhere) no longer takes keys', async () => {
    const { t, id, workspace } = await openSession()
    s.upstream.enqueue(callTools({ name: 'write', arguments: { path: 'late.txt', content: 'late\n' } }))
    send(t, 'write late.txt')
    await t.waitFor(asking, 'the approval')
    const blocked = await getSession(s.d, id)
    assert.equal(blocked.status.phase, 'blocked')
    // Another client interrupts the run: the request expires.
    const r = await s.d.request({
      method: 'POST',
      path: `/sessions/${id}/interrupt`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ run_id: blocked.status.run_id, through_input_order: blocked.input_order }),
    })
    assert.equal(r.status, 200, r.text())
    let screen = await t.waitFor(
      (x) => x.includes('not answered: the run ended') && ready(x),
      'the question closed',
    )
    assert.doesNotMatch(screen, /allow\? y/)
    assert.equal((screen.match(/\(interrupted\)/g) ?? []).length, 1, 'said once')
    // The answer keys are text now: y goes to the editor, nothing is decided.
    t.type('yes, now')
    screen = await t.waitFor((x) => /^ ?yes, now/m.test(x), 'the text in the editor, first letter kept')
    assert.equal(existsSync(join(workspace, 'late.txt')), false)
    assert.ok(idle(await getSession(s.d, id)))
  })

  it('an answer the daemon refuses as no longer pending closes the question with its reason', async () => {
    const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-tui-approve-')))
    const id = await createSession(s.d, { kind: 'new', workspace })
    s.upstream.enqueue(callTools({ name: 'write', arguments: { path: 'gone.txt', content: 'x\n' } }))
    await putInput(s.d, id, { kind: 'message', text: 'write gone.txt', client_id: 'test' })
    const blocked = await waitSession(s.d, id, (x) => x.status.phase === 'blocked')
    const requestId = blocked.status.blocking_reason.request_id
    const r = await s.d.request({
      method: 'POST',
      path: `/sessions/${id}/interrupt`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ run_id: blocked.status.run_id, through_input_order: blocked.input_order }),
    })
    assert.equal(r.status, 200, r.text())
    await waitSession(s.d, id, idle)
    // A client that missed the run's end still shows the question; its answer comes too late.
    const theme = makeTheme(false)
    const link = new SessionLink(() => HearthClient.fromHome(s.d.home), new Transcript(theme))
    const stale = new ApprovalBlock(
      theme,
      { request_id: requestId, tool: 'write', summary: 'write gone.txt' },
      undefined,
    )
    await link.open(id)
    try {
      await assert.rejects(link.approve(stale, 'allow', 'once'), /approval_not_pending/)
    } finally {
      link.close()
    }
    assert.equal(stale.open, false)
    const text = stale
      .render(80)
      .join('\n')
      .replace(/\x1b\[[0-9;]*m/g, '')
    assert.match(flat(text), /not answered: Approval request \S+ is already expired/)
    assert.equal(existsSync(join(workspace, 'gone.txt')), false)
  })

  it('a decision made by another client clears the question, and "always" says so', async () => {
    const { t, id, workspace } = await openSession()
    s.upstream.enqueue(
      callTools({ name: 'shell', arguments: { command: 'echo elsewhere > by-other.txt' } }),
      answer('Ran it.'),
    )
    send(t, 'run it')
    await t.waitFor(asking, 'the approval')
    const { status } = await getSession(s.d, id)
    const put = await putInput(s.d, id, {
      kind: 'approval',
      request_id: status.blocking_reason.request_id,
      decision: 'allow',
      remember: 'session',
      client_id: 'other',
    })
    assert.equal(put.status, 202, put.text())
    const screen = await t.waitFor((x) => x.includes('Ran it.') && ready(x), 'the run to go on')
    assert.match(screen, /^ {4}allowed \(always\)$/m)
    assert.doesNotMatch(screen, /allow\? y/)
    await waitSession(s.d, id, idle)
    assert.equal(readFileSync(join(workspace, 'by-other.txt'), 'utf8'), 'elsewhere\n')
  })

  it("a tool call's output is cut to its last lines with a count, and Ctrl-T shows it all; its name is said once", async () => {
    const { t } = await openSession(100, 50)
    s.upstream.enqueue(callTools({ name: 'shell', arguments: { command: 'seq 1 30' } }), answer('Counted.'))
    send(t, 'count')
    const asked = await t.waitFor(asking, 'the approval')
    // The call is named once: the question is asked under the call's own block.
    assert.equal(asked.match(/shell: seq 1 30/g)?.length, 1, asked)
    assert.match(asked, /^ {2}\? shell: seq 1 30 \(exec\)\n {8}\$ seq 1 30\n/m)
    t.type('y')
    let screen = await t.waitFor((x) => x.includes('Counted.') && ready(x), 'the answer')
    assert.match(screen, /✓ shell: seq 1 30 ok, exit 0/)
    assert.doesNotMatch(screen, /shell shell/)
    // 30 lines and whatever the login shell says on stderr: all but the last 6 are counted.
    const hidden = Number(/… (\d+) more lines \(Ctrl-T shows them\)/.exec(screen)?.[1])
    assert.ok(hidden >= 24, screen)
    assert.match(screen, /│ 30$/m)
    assert.doesNotMatch(screen, /│ 1$/m)
    t.keys('C-t')
    screen = await t.waitFor((x) => /│ 1$/m.test(x), 'the whole output')
    for (let i = 1; i <= 30; i++) assert.match(screen, new RegExp(`│ ${i}$`, 'm'))
    assert.doesNotMatch(screen, /more lines/)
  })

  it('shows what will happen: a command line and its directory, an edit diff, a write replacing a file', async () => {
    const { t, workspace } = await openSession(100, 50)
    writeFileSync(join(workspace, 'notes.txt'), 'alpha\nbeta\ngamma\n')
    const long = `echo ${'x'.repeat(150)} && echo the-end-of-the-line`
    s.upstream.enqueue(
      callTools({ name: 'shell', arguments: { command: long, cwd: '.' } }),
      callTools({ name: 'edit', arguments: { path: 'notes.txt', old_string: 'beta', new_string: 'BETA' } }),
      callTools({ name: 'write', arguments: { path: 'notes.txt', content: 'alpha\nBETA\ndelta\n' } }),
      answer('Three done.'),
    )
    send(t, 'do three things')
    let screen = await t.waitFor(
      (x) => asking(x) && x.includes('the-end-of-the-line'),
      'the command approval',
    )
    assert.match(flat(screen), /\$ echo x{20}.*x{20}.*&& echo the-end-of-the-line/)
    assert.match(flat(screen), new RegExp(`in ${workspace}`))
    assert.match(flat(screen), /a always: this exact command line, with shell, for this session/)
    t.type('y')
    screen = await t.waitFor((x) => asking(x) && /- beta/.test(x), 'the edit approval')
    assert.match(screen, /^ +\+ BETA$/m)
    assert.match(flat(screen), /every edit call in this session/)
    t.type('a')
    screen = await t.waitFor((x) => asking(x) && x.includes('replaces the file'), 'the write approval')
    assert.match(flat(screen), /notes\.txt, 17 bytes, 3 lines, replaces the file/)
    assert.match(screen, /^ +- gamma$/m)
    assert.match(screen, /^ +\+ delta$/m)
    t.type('y')
    screen = await t.waitFor((x) => x.includes('Three done.') && ready(x), 'the answer')
    assert.match(screen, /allowed \(always\)/)
    assert.equal(readFileSync(join(workspace, 'notes.txt'), 'utf8'), 'alpha\nBETA\ndelta\n')
  })
})
