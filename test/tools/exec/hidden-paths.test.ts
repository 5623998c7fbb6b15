// The user's other credentials stay out of reach of the model's tools, through the real
// daemon: its HOME is a temp directory holding a fake ~/.ssh/id_rsa, ~/.aws, ~/.netrc and the
// like, and the session's workspace is that home (the case where the sandbox's writable
// workspace would otherwise show them). A sandboxed `cat` gets nothing, the file tools refuse
// them and walks pass them by, settings add and lift paths, the session read lists them, and
// a password in a URL-valued variable never reaches a command.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, before, beforeEach, describe, it } from 'node:test'
import { sandboxStatus } from '../../../src/tools/exec/sandbox.ts'
import { answer, callTools, type ToolCallSpec, toolResultsOf } from '../../fakes/tool-script.ts'
import { getSession } from '../../inputs/helpers.ts'
import { change } from '../../settings/helpers.ts'
import { type AgentSetup, newSession, runMessage, startAgent } from '../agent-helpers.ts'

const CREDENTIALS: Record<string, string> = {
  '.ssh/id_rsa': 'SSH-PRIVATE-KEY-SECRET',
  '.aws/credentials': 'AWS-SECRET-IN-FILE',
  '.netrc': 'NETRC-PASSWORD-SECRET',
  '.config/gh/hosts.yml': 'GH-OAUTH-SECRET',
  '.claude.json': 'CLAUDE-AUTH-SECRET',
  '.local/share/opencode/auth.json': 'OPENCODE-AUTH-SECRET',
  '.mozilla/firefox/profile/cookies.sqlite': 'BROWSER-COOKIE-SECRET',
}
const EXTRA = { '.extra/secret.txt': 'EXTRA-SECRET' }
const PLAIN = { 'notes.txt': 'PLAIN-NOTES-VISIBLE' }

function writeTree(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true })
    writeFileSync(join(root, rel), `${text}\n`)
  }
}

const noSandbox = () => (sandboxStatus().available ? false : `no sandbox here: ${sandboxStatus().reason}`)

describe('hidden credentials', () => {
  let s: AgentSetup
  let userHome: string
  let sid: string

  before(async () => {
    userHome = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-user-home-')))
    writeTree(userHome, { ...CREDENTIALS, ...EXTRA, ...PLAIN })
    s = await startAgent({
      workspace: userHome,
      tools: { approval_policy: 'auto' },
      env: { HOME: userHome, DATABASE_URL: 'postgres://app:pg-secret-pw@db.example:5432/x' },
    })
    sid = await newSession(s)
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
    rmSync(userHome, { recursive: true, force: true })
  })
  beforeEach(() => s.upstream.reset())

  /** Runs one reply of calls; returns their results' outputs in order. */
  async function call(...calls: ToolCallSpec[]): Promise<string[]> {
    s.upstream.enqueue(callTools(...calls), answer('done'))
    await runMessage(s, sid, 'go', 30_000)
    // The request replays the whole session: this reply's results are the last ones.
    const results = toolResultsOf(s.upstream.requests.at(-1)?.body).map((r) => r.output)
    return results.slice(-calls.length)
  }

  const shell = (command: string): ToolCallSpec => ({ name: 'shell', arguments: { command } })

  it('a sandboxed command reads none of them, and still reads the rest of the home', async (tc) => {
    const why = noSandbox()
    if (why) return tc.skip(why)
    const cats = Object.keys(CREDENTIALS)
      .map((rel) => `cat ~/${rel}`)
      .join('; ')
    const [out] = await call(shell(`${cats}; cat ~/notes.txt; ls -A ~/.ssh | wc -l`))
    for (const secret of Object.values(CREDENTIALS)) assert.ok(!out.includes(secret), `${secret} in ${out}`)
    assert.match(out, /PLAIN-NOTES-VISIBLE/)
    assert.match(out, /^0$/m, 'the hidden ~/.ssh is empty')
  })

  it('the file tools refuse them; list, glob and grep pass them by', async () => {
    const [readKey, readNetrc, grep, list, glob, write] = await call(
      { name: 'read', arguments: { path: '.ssh/id_rsa' } },
      { name: 'read', arguments: { path: `${userHome}/.netrc` } },
      { name: 'grep', arguments: { pattern: 'SECRET|VISIBLE', path: '.' } },
      { name: 'list', arguments: { path: '.', depth: 5 } },
      { name: 'glob', arguments: { pattern: '**/*' } },
      { name: 'write', arguments: { path: '.ssh/authorized_keys', content: 'ssh-rsa AAAA attacker' } },
    )
    assert.match(readKey, /hidden/)
    assert.match(readNetrc, /hidden/)
    assert.match(write, /hidden/)
    assert.match(grep, /PLAIN-NOTES-VISIBLE/)
    for (const out of [readKey, readNetrc, grep, list, glob])
      for (const secret of Object.values(CREDENTIALS)) assert.ok(!out.includes(secret), `${secret} in ${out}`)
    for (const out of [list, glob]) {
      assert.match(out, /notes\.txt/)
      for (const name of ['id_rsa', '.netrc', 'hosts.yml', '.claude.json', 'cookies.sqlite'])
        assert.ok(!out.includes(name), `${name} in ${out}`)
    }
  })

  it('the session read lists the hidden paths', async () => {
    const read = await getSession(s.d, sid)
    const hidden: string[] = read.kernel.sandbox.hidden_paths
    for (const rel of [
      '.ssh',
      '.aws',
      '.netrc',
      '.config/gh',
      '.claude.json',
      '.local/share/opencode',
      '.mozilla',
    ])
      assert.ok(hidden.includes(join(userHome, rel)), rel)
    assert.equal(read.kernel.sandbox.git_writable, false)
  })

  it('settings add a path and lift one, for commands, file tools and the session read', async () => {
    await change(s.d, 'tools', { hidden_paths: ['~/.extra'], visible_paths: ['~/.netrc'] })
    try {
      const hidden: string[] = (await getSession(s.d, sid)).kernel.sandbox.hidden_paths
      assert.ok(hidden.includes(join(userHome, '.extra')))
      assert.ok(!hidden.includes(join(userHome, '.netrc')))
      assert.ok(hidden.includes(join(userHome, '.ssh')), 'the other defaults stay')
      const [readExtra, readNetrc] = await call(
        { name: 'read', arguments: { path: '.extra/secret.txt' } },
        { name: 'read', arguments: { path: '.netrc' } },
      )
      assert.match(readExtra, /hidden/)
      assert.ok(!readExtra.includes('EXTRA-SECRET'))
      assert.match(readNetrc, /NETRC-PASSWORD-SECRET/)
      if (!noSandbox()) {
        const [out] = await call(shell('cat ~/.extra/secret.txt; cat ~/.netrc'))
        assert.ok(!out.includes('EXTRA-SECRET'), out)
        assert.match(out, /NETRC-PASSWORD-SECRET/)
      }
    } finally {
      await change(s.d, 'tools', { hidden_paths: null, visible_paths: null })
    }
  })

  it('a password in a URL-valued variable does not reach a command; the rest of the URL does', async () => {
    const [out] = await call(shell('env'))
    assert.ok(!out.includes('pg-secret-pw'), out)
    assert.match(out, /^DATABASE_URL=postgres:\/\/app@db\.example:5432\/x$/m)
  })
})
