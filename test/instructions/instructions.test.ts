// Instruction files: AGENTS.md from hearth's home and from the workspace's directories reach
// the upstream as the turn's system text (Responses `instructions`, Chat a first system
// message) in their documented order, within their caps, as the files are at each turn's
// start; the session's selection turns files off, and the session read lists them.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, beforeEach, describe, it } from 'node:test'
import { FakeOpenAIUpstream } from '../fakes/openai-upstream.ts'
import { runCli, startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'
import { getSession, idle, message, putInput, waitSession } from '../inputs/helpers.ts'
import { configure, createSession } from '../streams/sse-client.ts'

const KiB = 1024

interface Block {
  path: string
  scope: string
  body: string
}

/** The wrapped files of a system text, in order. */
function blocksOf(system: string): Block[] {
  const re = /<instructions path=("(?:[^"\\]|\\.)*") scope="(\w+)">\n([\s\S]*?)<\/instructions>/g
  return [...system.matchAll(re)].map((m) => ({ path: JSON.parse(m[1]), scope: m[2], body: m[3] }))
}

describe('instructions', () => {
  let d: TestDaemon
  let upstream: FakeOpenAIUpstream
  let root: string
  /** Paths under this test's own directories (a stray /tmp/AGENTS.md is not ours to judge). */
  const ours = (p: string) => p.startsWith(root) || p.startsWith(d.home)

  before(async () => {
    upstream = await FakeOpenAIUpstream.start()
    const home = tempHome()
    const profile = (protocol: string) => ({ endpoint: `${upstream.url}/v1`, protocol, model: 'fake-model' })
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        providers: {
          default_profile: 'fake',
          profiles: { fake: profile('responses'), chat: profile('chat_completions') },
        },
      }),
    )
    writeFileSync(join(home, 'AGENTS.md'), 'global rule: answer briefly\n')
    d = await startDaemon({ home })
    root = mkdtempSync(join(tmpdir(), 'hearth-instr-'))
  })
  after(async () => {
    await d.stop()
    await upstream.close()
    rmSync(root, { recursive: true, force: true })
  })
  beforeEach(() => {
    upstream.reset()
  })

  /** A fresh directory tree under the test's root: `files` maps relative paths to contents. */
  function tree(name: string, files: Record<string, string | Buffer>): string {
    const base = join(root, name)
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(join(base, rel, '..'), { recursive: true })
      writeFileSync(join(base, rel), text)
    }
    return base
  }

  async function newSession(workspace: string, extra: Record<string, unknown> = {}): Promise<string> {
    mkdirSync(workspace, { recursive: true })
    return createSession(d, { kind: 'new', workspace, ...extra })
  }

  /** Sends one message and returns the body of the request the upstream got for it. */
  async function turn(sid: string): Promise<any> {
    const before = upstream.requests.length
    const r = await putInput(d, sid, message('hello'))
    assert.equal(r.status, 202, r.text())
    await waitSession(d, sid, (s) => idle(s) && s.latest_answer !== null && upstream.requests.length > before)
    return upstream.requests.at(-1)!.body
  }

  async function listed(sid: string): Promise<any[]> {
    return (await getSession(d, sid)).instructions.filter((s: any) => ours(s.path))
  }

  it('sends the global file first, then the outermost directory down to the workspace (Responses)', async () => {
    const base = tree('order', {
      'AGENTS.md': 'outer rule\n',
      'a/CLAUDE.md': 'middle rule from CLAUDE.md\n',
      'a/b/AGENTS.md': 'nearest rule\n',
      'a/b/CLAUDE.md': 'shadowed: never sent\n',
    })
    const sid = await newSession(join(base, 'a/b'))
    const body = await turn(sid)
    assert.equal(typeof body.instructions, 'string')
    const blocks = blocksOf(body.instructions).filter((b) => ours(b.path))
    assert.deepEqual(
      blocks.map((b) => [b.path, b.scope, b.body]),
      [
        [join(d.home, 'AGENTS.md'), 'global', 'global rule: answer briefly\n'],
        [join(base, 'AGENTS.md'), 'workspace', 'outer rule\n'],
        [join(base, 'a/CLAUDE.md'), 'workspace', 'middle rule from CLAUDE.md\n'],
        [join(base, 'a/b/AGENTS.md'), 'workspace', 'nearest rule\n'],
      ],
    )
    assert.doesNotMatch(body.instructions, /shadowed/)
    // The instructions go out as system text, never as a conversation message.
    assert.ok(body.input.every((m: any) => !JSON.stringify(m).includes('nearest rule')))
    assert.deepEqual(
      (await listed(sid)).map((s) => [
        s.path,
        s.scope,
        s.state,
        s.reason,
        s.bytes,
        s.sent_bytes,
        s.truncated,
      ]),
      [
        [join(d.home, 'AGENTS.md'), 'global', 'loaded', null, 28, 28, false],
        [join(base, 'AGENTS.md'), 'workspace', 'loaded', null, 11, 11, false],
        [join(base, 'a/CLAUDE.md'), 'workspace', 'loaded', null, 27, 27, false],
        [join(base, 'a/b/AGENTS.md'), 'workspace', 'loaded', null, 13, 13, false],
      ],
    )
  })

  it('sends the same text as the first system message on Chat Completions', async () => {
    const base = tree('chat', { 'AGENTS.md': 'outer chat rule\n', 'w/AGENTS.md': 'inner chat rule\n' })
    const sid = await newSession(join(base, 'w'), { provider_profile: 'chat' })
    const body = await turn(sid)
    assert.equal(body.messages[0].role, 'system')
    const blocks = blocksOf(body.messages[0].content).filter((b) => ours(b.path))
    assert.deepEqual(
      blocks.map((b) => b.body),
      ['global rule: answer briefly\n', 'outer chat rule\n', 'inner chat rule\n'],
    )
    assert.equal(body.messages[1].role, 'user')
    assert.equal(body.messages.filter((m: any) => m.role === 'system').length, 1)
  })

  it('cuts a file at 32 KiB and the whole at 64 KiB, nearest files first', async () => {
    const big = (ch: string, n: number) => `${ch.repeat(n - 1)}\n`
    const base = tree('caps', {
      'AGENTS.md': big('o', 20 * KiB),
      'm/AGENTS.md': big('m', 30 * KiB),
      // 40 KiB of two-byte characters: the cut at 32 KiB lands on a character boundary.
      'm/w/AGENTS.md': 'é'.repeat(20 * KiB),
    })
    const sid = await newSession(join(base, 'm/w'))
    const body = await turn(sid)
    const blocks = blocksOf(body.instructions).filter((b) => ours(b.path))
    const nearest = blocks.find((b) => b.path === join(base, 'm/w/AGENTS.md'))!
    assert.equal(
      nearest.body,
      `${'é'.repeat(16 * KiB)}\n[cut here: the file has 40960 bytes; the first 32768 are shown]\n`,
    )
    const middle = blocks.find((b) => b.path === join(base, 'm/AGENTS.md'))!
    assert.equal(middle.body, big('m', 30 * KiB))
    // 64 - 32 - 30 = 2 KiB are left for the outer file, and nothing for the global one.
    const outer = blocks.find((b) => b.path === join(base, 'AGENTS.md'))!
    assert.equal(
      outer.body,
      `${'o'.repeat(2 * KiB)}\n[cut here: the file has 20480 bytes; the first 2048 are shown]\n`,
    )
    assert.equal(
      blocks.some((b) => b.scope === 'global'),
      false,
    )
    assert.deepEqual(
      (await listed(sid)).map((s) => [s.scope, s.state, s.reason, s.bytes, s.sent_bytes, s.truncated]),
      [
        ['global', 'skipped', 'over_total_budget', 28, 0, false],
        ['workspace', 'loaded', null, 20 * KiB, 2 * KiB, true],
        ['workspace', 'loaded', null, 30 * KiB, 30 * KiB, false],
        ['workspace', 'loaded', null, 40 * KiB, 32 * KiB, true],
      ],
    )
  })

  it('picks up a file edited between turns, also when its size stays the same', async () => {
    const base = tree('edit', { 'AGENTS.md': 'version one\n' })
    const sid = await newSession(base)
    const first = await turn(sid)
    assert.match(first.instructions, /version one/)
    writeFileSync(join(base, 'AGENTS.md'), 'version two\n')
    const second = await turn(sid)
    assert.match(second.instructions, /version two/)
    assert.doesNotMatch(second.instructions, /version one/)
    rmSync(join(base, 'AGENTS.md'))
    const third = await turn(sid)
    assert.doesNotMatch(third.instructions ?? '', /version/)
  })

  it('leaves out a file the selection turns off, and a whole scope', async () => {
    const base = tree('off', { 'AGENTS.md': 'outer on\n', 'w/AGENTS.md': 'inner off\n' })
    const sid = await newSession(join(base, 'w'))
    await configure(d, sid, { selection: { instructions: { [join(base, 'w/AGENTS.md')]: false } } })
    const body = await turn(sid)
    assert.match(body.instructions, /outer on/)
    assert.doesNotMatch(body.instructions, /inner off/)
    assert.deepEqual(
      (await listed(sid)).map((s) => [s.path, s.state]),
      [
        [join(d.home, 'AGENTS.md'), 'loaded'],
        [join(base, 'AGENTS.md'), 'loaded'],
        [join(base, 'w/AGENTS.md'), 'off'],
      ],
    )
    // A scope entry turns off every file of the scope; a file's own entry still wins.
    await configure(d, sid, {
      selection: { instructions: { workspace: false, global: false, [join(base, 'w/AGENTS.md')]: true } },
    })
    const body2 = await turn(sid)
    const blocks = blocksOf(body2.instructions)
    assert.deepEqual(
      blocks.map((b) => b.path),
      [join(base, 'w/AGENTS.md')],
    )
    // Every file off: no file and no preface, hearth's own instructions only.
    await configure(d, sid, { selection: { instructions: { [join(base, 'w/AGENTS.md')]: null } } })
    const body3 = await turn(sid)
    assert.deepEqual(blocksOf(body3.instructions), [])
    assert.doesNotMatch(body3.instructions, /Instruction files follow/)
    assert.match(body3.instructions, /^You are a coding agent running in hearth/)
    assert.ok((await listed(sid)).every((s) => s.state === 'off'))
  })

  it('skips what is not a readable, trusted text file, with the reason in the read', async () => {
    const base = tree('skips', {
      'AGENTS.md': Buffer.from([0x72, 0x75, 0x6c, 0x65, 0xff, 0xfe, 0x0a]), // not UTF-8
      'a/CLAUDE.md': ' \n\t\n', // nothing but white space
      'a/b/AGENTS.md': 'writable by anyone\n',
      'a/b/c/AGENTS.md/keep': '', // a directory named AGENTS.md
      'a/b/c/CLAUDE.md': 'not a fallback for an AGENTS.md that is there\n',
      'a/b/c/d/target.md': 'through a symlink\n',
    })
    chmodSync(join(base, 'a/b/AGENTS.md'), 0o666)
    const d4 = join(base, 'a/b/c/d')
    symlinkSync(join(d4, 'target.md'), join(d4, 'AGENTS.md'))
    const d5 = join(d4, 'e')
    mkdirSync(d5)
    execFileSync('mkfifo', [join(d5, 'AGENTS.md')])
    const d6 = join(d5, 'f')
    mkdirSync(d6)
    symlinkSync(join(d6, 'nowhere.md'), join(d6, 'AGENTS.md'))
    const sid = await newSession(d6)
    const body = await turn(sid)
    assert.deepEqual(
      blocksOf(body.instructions)
        .filter((b) => ours(b.path))
        .map((b) => [b.path, b.body]),
      [
        [join(d.home, 'AGENTS.md'), 'global rule: answer briefly\n'],
        [join(d4, 'AGENTS.md'), 'through a symlink\n'],
      ],
    )
    assert.deepEqual(
      (await listed(sid)).map((s) => [s.path.replace(base, ''), s.state, s.reason]),
      [
        [join(d.home, 'AGENTS.md'), 'loaded', null],
        ['/AGENTS.md', 'skipped', 'not_text'],
        ['/a/CLAUDE.md', 'skipped', 'empty'],
        ['/a/b/AGENTS.md', 'skipped', 'writable_by_others'],
        ['/a/b/c/AGENTS.md', 'skipped', 'not_a_file'],
        ['/a/b/c/d/AGENTS.md', 'loaded', null],
        ['/a/b/c/d/e/AGENTS.md', 'skipped', 'not_a_file'],
        ['/a/b/c/d/e/f/AGENTS.md', 'skipped', 'unreadable'],
      ],
    )
  })

  it('skips a file another user owns in a directory above the workspace', {
    skip: process.getuid?.() !== 0 && 'needs root to give a file to another user',
  }, async () => {
    const base = tree('owner', { 'AGENTS.md': 'planted by someone else\n', 'w/AGENTS.md': 'mine\n' })
    chownSync(join(base, 'AGENTS.md'), 4242, 4242)
    const sid = await newSession(join(base, 'w'))
    const body = await turn(sid)
    assert.doesNotMatch(body.instructions, /planted/)
    assert.match(body.instructions, /mine/)
    const planted = (await listed(sid)).find((s) => s.path === join(base, 'AGENTS.md'))
    assert.deepEqual([planted.state, planted.reason], ['skipped', 'untrusted_owner'])
    // The workspace's owner is trusted: a checkout another uid owns keeps its own rules.
    chownSync(join(base, 'w'), 4242, 4242)
    const body2 = await turn(sid)
    assert.match(body2.instructions, /planted/)
  })

  it('lists the files in the read before any turn, and never in the session list', async () => {
    const base = tree('list', { 'AGENTS.md': 'listed\n' })
    const sid = await newSession(base)
    const s = await getSession(d, sid)
    assert.deepEqual(
      s.instructions.filter((x: any) => ours(x.path)).map((x: any) => x.path),
      [join(d.home, 'AGENTS.md'), join(base, 'AGENTS.md')],
    )
    const page = await d.request({ path: '/sessions?limit=200' })
    const item = page.json().items.find((x: any) => x.id === sid)
    assert.ok(item)
    assert.equal('instructions' in item, false)
  })

  it('hearth session show lists the files with their state', async () => {
    const base = tree('cli', { 'AGENTS.md': 'outer\n', 'w/AGENTS.md': 'é'.repeat(20 * KiB) })
    const sid = await newSession(join(base, 'w'))
    await configure(d, sid, { selection: { instructions: { [join(base, 'AGENTS.md')]: false } } })
    const r = await runCli(['session', 'show', sid, '--home', d.home], { HEARTH_HOME: '' })
    assert.equal(r.code, 0, r.stderr)
    const lines = r.stdout.split('\n')
    const first = lines.findIndex((l) => l.startsWith('instructions'))
    assert.match(lines[first], new RegExp(`^instructions\\s+${d.home}/AGENTS.md \\(28 bytes\\)$`))
    const mine = lines.slice(first + 1).filter((l) => l.includes(base))
    assert.deepEqual(
      mine.map((l) => l.trim()),
      [`${base}/AGENTS.md (off)`, `${base}/w/AGENTS.md (32768 bytes of 40960, cut)`],
    )
  })
})
