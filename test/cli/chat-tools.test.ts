// `hearth send` and `hearth chat` in an agent turn: tool calls shown compactly with a
// command's streamed output, approvals asked inline or answered by --approve, against a
// real daemon, a real shell in a temp workspace and the scripted fake upstream.
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { answer, callTools, toolResultsOf } from '../fakes/tool-script.ts'
import { runCli } from '../helpers/daemon.ts'
import { type Setup, startWithUpstream } from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'

describe('hearth send and chat with tools', () => {
  let s: Setup
  let workspace: string
  before(async () => {
    s = await startWithUpstream()
    workspace = mkdtempSync(join(tmpdir(), 'hearth-cli-ws-'))
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })

  const newSession = () => createSession(s.d, { kind: 'new', workspace })

  it('send --approve auto runs a command that asks, streams its output and ends with the answer', async () => {
    const sid = await newSession()
    s.upstream.enqueue(
      callTools({ name: 'shell', arguments: { command: 'echo first-line; echo second-line' } }),
      answer('Both lines printed.'),
    )
    const r = await runCli(['send', sid, 'run it', '--approve', 'auto', '--home', s.d.home])
    assert.equal(r.code, 0, r.stderr)
    const out = r.stdout
    assert.match(out, /^▸ .*echo first-line/m)
    assert.match(out, /^ {2}│ first-line\n {2}│ second-line\n/m)
    assert.match(out, /^ {2}✓ done \(exit 0\)$/m)
    assert.ok(out.trimEnd().endsWith('Both lines printed.'), out)
    assert.match(r.stderr, /allowed by --approve/)
  })

  it('send --approve deny leaves the file unwritten; the model gets the denial and answers', async () => {
    const sid = await newSession()
    s.upstream.enqueue(callTools({ name: 'write', arguments: { path: 'denied.txt', content: 'x' } }), (req) =>
      answer(`Told: ${toolResultsOf(req.body)[0]?.output.slice(0, 40)}`),
    )
    const r = await runCli(['send', sid, 'write it', '--approve', 'deny', '--home', s.d.home])
    assert.equal(r.code, 0, r.stderr)
    assert.ok(!existsSync(join(workspace, 'denied.txt')))
    assert.match(r.stdout, /^▸ write denied\.txt.*\n {2}✗ denied/m)
    assert.match(r.stdout, /Told: /)
  })

  it('send without a terminal and without --approve denies and says how to allow', async () => {
    const sid = await newSession()
    s.upstream.enqueue(
      callTools({ name: 'write', arguments: { path: 'quiet.txt', content: 'x' } }),
      answer('ok'),
    )
    const r = await runCli(['send', sid, 'write it', '--home', s.d.home])
    assert.equal(r.code, 0, r.stderr)
    assert.ok(!existsSync(join(workspace, 'quiet.txt')))
    assert.match(r.stderr, /pass --approve auto/)
  })

  it('chat asks inline: "a" allows the call and remembers it for the session', async () => {
    const sid = await newSession()
    s.upstream.enqueue(
      callTools({ name: 'write', arguments: { path: 'one.txt', content: 'first\n' } }),
      answer('Wrote one.'),
      callTools({ name: 'write', arguments: { path: 'two.txt', content: 'second\n' } }),
      answer('Wrote two.'),
    )
    // The second line answers the question the first message's turn asks; the third is a
    // new message whose write is not asked again.
    const r = await runCli(['chat', sid, '--home', s.d.home], undefined, {
      stdin: 'write one\na\nwrite two\n',
    })
    assert.equal(r.code, 0, r.stderr)
    assert.equal(readFileSync(join(workspace, 'one.txt'), 'utf8'), 'first\n')
    assert.equal(readFileSync(join(workspace, 'two.txt'), 'utf8'), 'second\n')
    assert.equal(r.stdout.match(/\[y\]es \/ \[n\]o \/ \[a\]lways/g)?.length, 1, r.stdout)
    // The question shows what the write does and what "always" covers, and the answer given.
    assert.match(r.stdout, /│ one\.txt, 6 bytes, 1 line\n {2}│ \+ first\n/)
    assert.match(r.stdout, /always = every write call in this session/)
    assert.match(r.stdout, /\(allowed \(always\)\)/)
    assert.match(r.stdout, /Wrote one\./)
    assert.match(r.stdout, /Wrote two\./)
  })

  it('chat shows the diff of a write that replaces a file before asking', async () => {
    const sid = await newSession()
    writeFileSync(join(workspace, 'notes.txt'), 'keep\nold line\nend\n')
    s.upstream.enqueue(
      callTools({ name: 'write', arguments: { path: 'notes.txt', content: 'keep\nnew line\nend\n' } }),
      answer('Replaced.'),
    )
    const r = await runCli(['chat', sid, '--home', s.d.home], undefined, { stdin: 'replace it\nn\n' })
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /notes\.txt, 18 bytes, 3 lines, replaces the file/)
    assert.match(r.stdout, /- old line\n {2}│ \+ new line\n/)
    // Denied: the file is as it was.
    assert.equal(readFileSync(join(workspace, 'notes.txt'), 'utf8'), 'keep\nold line\nend\n')
  })
})
