// The check-then-use race, end to end: a real daemon, a fake model that sends hundreds of
// file-tool calls in one reply, and a process that swaps the path they name for a symbolic
// link to hearth's home or to a directory outside the workspace in a tight loop. Whatever
// the timing, no result may carry a byte of creds.json or of the outside files (nor a name
// listed there), and no write may land outside the workspace.
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, lstatSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { answer, callTools, type ToolCallSpec, toolResultsOf } from '../../fakes/tool-script.ts'
import { type AgentSetup, newSession, runMessage, startAgent } from '../agent-helpers.ts'
import { files, tempDir } from './helpers.ts'

/** Calls of each tool per scenario: 4 scenarios make about 300 calls a tool. */
const CALLS = 75
const tag = randomBytes(6).toString('hex')
const CREDS_SECRET = `sk-hearth-race-${tag}`
const OUTSIDE_SECRET = `outside-secret-${tag}`
/** What a leaked listing would show: a name only hearth's home or the outside directory has. */
const LEAKED_NAME = /config\.json|state\.db|outside-only/
const SWAPPER = join(import.meta.dirname, 'swap-loop.ts')

interface Scenario {
  name: string
  kind: 'file' | 'dir'
  /** The workspace path the loop swaps. */
  target: string
  /** Where its link points. */
  linkTo: (s: AgentSetup, outside: string) => string
  /** For a directory: the file read and edited in it, one that also exists where the link points. */
  inner?: string
}

const scenarios: Scenario[] = [
  {
    name: 'a file swapped for a link to creds.json',
    kind: 'file',
    target: 'f-home.txt',
    linkTo: (s) => join(s.home, 'creds.json'),
  },
  {
    name: 'a file swapped for a link outside',
    kind: 'file',
    target: 'f-out.txt',
    linkTo: (_, o) => join(o, 'secret.txt'),
  },
  {
    name: 'a directory swapped for a link to the home',
    kind: 'dir',
    target: 'd-home',
    linkTo: (s) => s.home,
    inner: 'creds.json',
  },
  {
    name: 'a directory swapped for a link outside',
    kind: 'dir',
    target: 'd-out',
    linkTo: (_, o) => o,
    inner: 'secret.txt',
  },
]

const FILE_CONTENT = 'alpha needle\n'

/** The calls of one reply: every tool on the swapped path, CALLS times each, interleaved. */
function callsFor(sc: Scenario): ToolCallSpec[] {
  const t = sc.target
  const calls: ToolCallSpec[] = []
  for (let i = 0; i < CALLS; i++) {
    const file = sc.kind === 'file' ? t : `${t}/${sc.inner}`
    calls.push({ name: 'read', arguments: { path: file }, pieces: 1 })
    calls.push({ name: 'grep', arguments: { pattern: 'needle', path: t }, pieces: 1 })
    if (sc.kind === 'dir') {
      calls.push({ name: 'list', arguments: { path: t }, pieces: 1 })
      calls.push({ name: 'glob', arguments: { pattern: '*', path: t }, pieces: 1 })
      calls.push({ name: 'list', arguments: { path: t, depth: 2 }, pieces: 1 })
      calls.push({ name: 'glob', arguments: { pattern: '**/*.txt', path: t }, pieces: 1 })
    }
    const written = sc.kind === 'file' ? t : `${t}/new-${i}.txt`
    calls.push({ name: 'write', arguments: { path: written, content: `model wrote ${i}\n` }, pieces: 1 })
    calls.push({
      name: 'edit',
      arguments: { path: file, old_string: 'needle', new_string: 'needle!' },
      pieces: 1,
    })
  }
  return calls
}

function startSwapping(sc: Scenario, ws: string, linkTo: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [SWAPPER, sc.kind, join(ws, sc.target), linkTo, FILE_CONTENT], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    child.stdout?.once('data', () => resolve(child))
    child.once('error', reject)
  })
}

async function stopSwapping(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGKILL')
  await exited
}

/**
 * Every file under a directory, as path → content (links not followed). A file gone between
 * the listing and the read (the daemon's own temporary file, renamed) is left out.
 */
function contentsOf(dir: string, out = new Map<string, string>()): Map<string, string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const abs = join(dir, e.name)
    if (e.isDirectory()) contentsOf(abs, out)
    else if (e.isFile()) {
      try {
        out.set(abs, readFileSync(abs, 'utf8'))
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
      }
    }
  }
  return out
}

describe('file tools against a path swapped for a symbolic link meanwhile', () => {
  let s: AgentSetup
  const outside = tempDir('hearth-outside-')
  before(async () => {
    s = await startAgent({ tools: { approval_policy: 'auto', max_steps: 10 } })
    writeFileSync(
      join(s.home, 'creds.json'),
      JSON.stringify({ mcp: { race: { token: `${CREDS_SECRET} needle` } } }),
    )
    files(outside, {
      'secret.txt': `${OUTSIDE_SECRET} needle\n`,
      'outside-only.txt': `${OUTSIDE_SECRET} needle\n`,
    })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })

  for (const sc of scenarios) {
    it(`${sc.name}: nothing leaks, nothing lands outside`, async (t) => {
      const ws = s.workspace
      if (sc.kind === 'file') files(ws, { [sc.target]: FILE_CONTENT })
      else
        files(ws, {
          [`${sc.target}/secret.txt`]: 'inside needle\n',
          [`${sc.target}/creds.json`]: 'inside needle\n',
        })
      const homeBefore = contentsOf(s.home)
      const outsideBefore = contentsOf(outside)
      const sid = await newSession(s)
      const calls = callsFor(sc)
      s.upstream.reset()
      s.upstream.enqueue(callTools(...calls), answer('done'))

      const swapper = await startSwapping(sc, ws, sc.linkTo(s, outside))
      try {
        await runMessage(s, sid, 'search the swapped path', 120_000)
      } finally {
        await stopSwapping(swapper)
      }
      // Put the directory back if the loop was killed while it stood aside.
      const aside = join(ws, `${sc.target}.swap-real`)
      if (sc.kind === 'dir' && existsSync(aside)) {
        if (existsSync(join(ws, sc.target)) || lstatSync(join(ws, sc.target), { throwIfNoEntry: false }))
          rmSync(join(ws, sc.target), { recursive: true, force: true })
        renameSync(aside, join(ws, sc.target))
      }

      const results = toolResultsOf(s.upstream.requests[1]?.body)
      assert.equal(results.length, calls.length, 'every call has its result')
      const leaks = results.filter(
        (r) =>
          r.output.includes(CREDS_SECRET) || r.output.includes(OUTSIDE_SECRET) || LEAKED_NAME.test(r.output),
      )
      assert.deepEqual(
        leaks.map((r) => r.output.slice(0, 300)),
        [],
        `${leaks.length} of ${results.length} results leaked`,
      )
      // Nothing written or changed outside the workspace, nor any secret copied into it.
      const homeAfter = contentsOf(s.home)
      for (const [path, text] of homeBefore)
        if (path.endsWith('creds.json')) assert.equal(homeAfter.get(path), text)
      // The daemon's own snapshot store may be writing the run's after snapshot meanwhile
      // (its objects go through temporary files): that is not a tool's write.
      const store = `${join(s.home, 'snapshots')}/`
      assert.deepEqual(
        [...homeAfter.keys()].filter((p) => /new-\d+\.txt|\.tmp$/.test(p) && !p.startsWith(store)),
        [],
        'no write landed in the home',
      )
      assert.deepEqual(contentsOf(outside), outsideBefore, 'no write landed outside')
      for (const [path, text] of contentsOf(ws))
        assert.ok(!text.includes(CREDS_SECRET) && !text.includes(OUTSIDE_SECRET), `${path} holds a secret`)
      // The race really ran: some calls met the link (refused), some the real thing.
      const refused = results.filter((r) => /outside|symbolic link|hearth's own home|changed/.test(r.output))
      t.diagnostic(`${refused.length} of ${results.length} calls met the link and were refused`)
      assert.ok(refused.length > 0, 'no call met the link: the loop did not race')
      assert.ok(results.length - refused.length > 0, 'no call met the real path')
    })
  }
})
