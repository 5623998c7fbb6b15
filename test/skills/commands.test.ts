// Commands: Markdown prompt templates in the workspace's `.hearth/commands/` and the home's
// `commands/`. `hearth chat` lists them with `/commands` and sends `/NAME ARGS` as the
// template with `$ARGUMENTS` replaced; the workspace's command wins over the home's of the
// same name; a line naming no command is sent as it is.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { expandTemplate } from '../../src/client/catalog.ts'
import { Commands } from '../../src/skills/commands.ts'
import { runCli } from '../helpers/daemon.ts'
import { type Setup, startWithUpstream } from '../inputs/helpers.ts'

function write(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, text)
}

describe('commands in hearth chat', () => {
  let s: Setup
  let ws: string
  before(async () => {
    s = await startWithUpstream()
    ws = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-cmd-ws-')))
    write(
      join(ws, '.hearth', 'commands', 'review.md'),
      '---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $ARGUMENTS carefully.\n',
    )
    write(join(s.d.home, 'commands', 'review.md'), 'HOME REVIEW $ARGUMENTS\n')
    write(join(s.d.home, 'commands', 'greet.md'), 'Say hello to the team.\n')
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
    rmSync(ws, { recursive: true, force: true })
  })

  it('/commands lists them; /review ARGS sends the template; an unknown /name goes as typed', async () => {
    const before = s.upstream.requests.length
    const r = await runCli(
      ['chat', '--home', s.d.home, '--workspace', ws],
      {},
      {
        stdin: '/commands\n/review src/a.ts\n/greet\n/unknown thing\n',
        timeoutMs: 30_000,
      },
    )
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /COMMAND\s+SOURCE\s+DESCRIPTION/)
    assert.match(r.stdout, /\/review FILE\s+workspace\s+Review a file/)
    assert.match(r.stdout, /\/greet\s+home/)
    const sent = s.upstream.requests.slice(before).map((q) => JSON.stringify(q.body.input))
    assert.equal(sent.length, 3, 'one request per line but /commands')
    assert.match(sent[0], /Review src\/a.ts carefully\./)
    assert.doesNotMatch(sent[0], /HOME REVIEW|description/)
    assert.match(sent[1], /Say hello to the team\./)
    assert.match(sent[2], /\/unknown thing/)
  })
})

describe('commands finder', () => {
  it('skips bad files with a reason; a symlink out of the workspace is refused', () => {
    const w = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-cmd-')))
    const out = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-cmd-out-')))
    try {
      const dir = join(w, '.hearth', 'commands')
      write(join(dir, 'ok.md'), 'fine $ARGUMENTS')
      write(join(dir, 'bad.md'), '---\ndescription: [x\n---\nbody')
      write(join(dir, 'notes.txt'), 'not a command')
      write(join(out, 'far.md'), 'SECRET')
      symlinkSync(join(out, 'far.md'), join(dir, 'far.md'))
      const found = new Commands(null).find(w)
      assert.deepEqual(
        found.commands.map((c) => c.name),
        ['ok'],
      )
      const reasons = Object.fromEntries(found.skipped.map((k) => [k.path.split('/').at(-1), k.reason]))
      assert.match(reasons['bad.md'], /not valid YAML/)
      assert.match(reasons['far.md'], /outside/)
      assert.equal(expandTemplate(found.commands[0].template, 'a b'), 'fine a b')
      assert.equal(expandTemplate('no placeholder\n', 'x'), 'no placeholder\n\nx')
    } finally {
      rmSync(w, { recursive: true, force: true })
      rmSync(out, { recursive: true, force: true })
    }
  })
})
