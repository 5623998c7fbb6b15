// A repository's .git is read-only to tools and commands unless the session allows git
// writes, through the real daemon: a sandboxed command cannot add a hook, write and edit
// refuse .git/config (and the `.git` file of a worktree), nothing changes on disk; once the
// session's allow_git_writes is on, the same calls go through.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, beforeEach, describe, it } from 'node:test'
import { sandboxStatus } from '../../../src/tools/exec/sandbox.ts'
import { answer, callTools, type ToolCallSpec, toolResultsOf } from '../../fakes/tool-script.ts'
import { getSession } from '../../inputs/helpers.ts'
import { type AgentSetup, newSession, runMessage, startAgent } from '../agent-helpers.ts'

const HOOK = '.git/hooks/pre-commit'
const CONFIG = '.git/config'

describe('.git is read-only unless the session allows git writes', () => {
  let s: AgentSetup
  let sid: string
  let configBefore: string

  before(async () => {
    const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-git-ws-')))
    execFileSync('git', ['init', '-q', workspace])
    configBefore = readFileSync(join(workspace, CONFIG), 'utf8')
    s = await startAgent({ workspace, tools: { approval_policy: 'auto' } })
    sid = await newSession(s)
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
    rmSync(s.workspace, { recursive: true, force: true })
  })
  beforeEach(() => s.upstream.reset())

  async function call(...calls: ToolCallSpec[]): Promise<string[]> {
    s.upstream.enqueue(callTools(...calls), answer('done'))
    await runMessage(s, sid, 'go', 30_000)
    // The request replays the whole session: this reply's results are the last ones.
    return toolResultsOf(s.upstream.requests.at(-1)?.body)
      .map((r) => r.output)
      .slice(-calls.length)
  }

  const hookCommand = { name: 'shell', arguments: { command: `echo 'touch /tmp/pwned' > ${HOOK}` } }
  const writeConfig = {
    name: 'write',
    arguments: { path: CONFIG, content: '[core]\n\tfsmonitor = touch /tmp/pwned\n' },
  }
  const editConfig = {
    name: 'edit',
    arguments: { path: CONFIG, old_string: '[core]', new_string: '[core]\n\thooksPath = /tmp/evil' },
  }

  async function allowGitWrites(allow: boolean): Promise<any> {
    const cur = await s.d.request({ path: `/sessions/${sid}?view=configuration` })
    const patch = await s.d.request({
      method: 'PATCH',
      path: `/sessions/${sid}?view=configuration`,
      headers: { 'content-type': 'application/merge-patch+json', 'if-match': String(cur.headers.etag) },
      body: JSON.stringify({ allow_git_writes: allow }),
    })
    assert.equal(patch.status, 200, patch.text())
    return patch.json().resource.value
  }

  it('by default: a command cannot add a hook; write and edit refuse .git/config', async (tc) => {
    const [write, edit] = await call(writeConfig, editConfig)
    assert.match(write, /\.git/)
    assert.match(write, /Refused/)
    assert.match(edit, /Refused/)
    assert.equal(readFileSync(join(s.workspace, CONFIG), 'utf8'), configBefore)
    if (sandboxStatus().available) {
      const [shell] = await call(hookCommand)
      assert.match(shell, /Read-only file system/)
      assert.equal(existsSync(join(s.workspace, HOOK)), false)
    }
    const config = (await s.d.request({ path: `/sessions/${sid}?view=configuration` })).json()
    assert.equal(config.value.allow_git_writes, false)
    assert.equal((await getSession(s.d, sid)).kernel.sandbox.git_writable, false)
    if (!sandboxStatus().available) tc.skip(`commands unchecked, no sandbox here: ${sandboxStatus().reason}`)
  })

  it('a workspace that is a worktree: its .git file is read-only too', async (tc) => {
    const worktree = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-git-wt-')))
    const gitdir = join(s.workspace, '.git', 'worktrees', 'wt')
    mkdirSync(gitdir, { recursive: true })
    writeFileSync(join(gitdir, 'commondir'), '../..\n')
    writeFileSync(join(worktree, '.git'), `gitdir: ${gitdir}\n`)
    const main = sid
    sid = await newSession(s, { workspace: worktree })
    try {
      const [write] = await call({
        name: 'write',
        arguments: { path: '.git', content: 'gitdir: /tmp/evil\n' },
      })
      assert.match(write, /Refused/)
      assert.equal(readFileSync(join(worktree, '.git'), 'utf8'), `gitdir: ${gitdir}\n`)
      if (!sandboxStatus().available) return tc.skip(`no sandbox here: ${sandboxStatus().reason}`)
      const [shell] = await call({ name: 'shell', arguments: { command: "echo 'gitdir: /tmp/evil' > .git" } })
      assert.match(shell, /Read-only file system/)
      assert.equal(readFileSync(join(worktree, '.git'), 'utf8'), `gitdir: ${gitdir}\n`)
    } finally {
      sid = main
      rmSync(worktree, { recursive: true, force: true })
    }
  })

  it('once the session allows git writes, the same calls go through', async (tc) => {
    assert.equal((await allowGitWrites(true)).allow_git_writes, true)
    try {
      assert.equal((await getSession(s.d, sid)).kernel.sandbox.git_writable, true)
      const [write, edit] = await call(writeConfig, editConfig)
      assert.doesNotMatch(write, /Refused/)
      assert.doesNotMatch(edit, /Refused/)
      assert.match(readFileSync(join(s.workspace, CONFIG), 'utf8'), /hooksPath = \/tmp\/evil/)
      if (!sandboxStatus().available) return tc.skip(`no sandbox here: ${sandboxStatus().reason}`)
      const [shell] = await call(hookCommand)
      assert.match(shell, /exit code 0/)
      assert.equal(readFileSync(join(s.workspace, HOOK), 'utf8'), 'touch /tmp/pwned\n')
    } finally {
      await allowGitWrites(false)
    }
  })
})
