// The check-then-use race of a restore: after the plan, while apply writes, the directory the
// files go to is swapped for a symbolic link to a directory outside the root, once (as soon as
// the first restored file lands in it) and in a tight loop (the file tools' swap loop, a
// separate process). Whatever the timing, nothing may be written outside the root, and an
// apply that meets the link refuses with the engine's refusal.
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, lstatSync, renameSync, rmSync, symlinkSync, watch } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import type { RestorePlanItem, SnapshotEngine } from '../../src/snapshots/engine.ts'
import { filesOf, newEngine, put, tempDir } from './fixture.ts'

const SWAPPER = join(import.meta.dirname, '..', 'tools', 'files', 'swap-loop.ts')
const REFUSAL = /refused to restore dir\/f\d+\.txt: dir is a link that leads outside the root/

/** A root whose run changed FILES files in `dir/`, a directory outside, and the plan putting them back. */
async function planned(files: number) {
  const { engine } = newEngine()
  const root = tempDir()
  const outside = tempDir('hearth-outside-')
  put(outside, 'outside-only.txt', 'outside\n')
  const name = (i: number) => `dir/f${String(i).padStart(4, '0')}.txt`
  for (let i = 0; i < files; i++) put(root, name(i), `before ${i}\n`)
  const before = await engine.take([root], 'before')
  for (let i = 0; i < files; i++) put(root, name(i), `after ${i}\n`)
  const after = await engine.take([root], 'after')
  const plan = await engine.plan(before.roots, after.roots, after.roots)
  assert.equal(plan.filter((i) => i.action === 'write').length, files)
  return { engine, root, outside, plan, name }
}

/** Puts `dir` back as the real directory after a swap (the loop may have been killed midway). */
function putBack(root: string, aside: string): void {
  const dir = join(root, 'dir')
  if (!existsSync(aside)) return
  if (lstatSync(dir, { throwIfNoEntry: false })) rmSync(dir, { recursive: true, force: true })
  renameSync(aside, dir)
}

async function applyOutcome(engine: SnapshotEngine, plan: RestorePlanItem[]): Promise<'applied' | Error> {
  try {
    await engine.apply(plan)
    return 'applied'
  } catch (err) {
    return err as Error
  }
}

function startSwapping(target: string, linkTo: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [SWAPPER, 'dir', target, linkTo], {
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

describe('snapshot restore against a directory swapped for a link meanwhile', () => {
  it('refuses when the directory becomes a link once apply has begun, and writes nothing outside', async () => {
    const { engine, root, outside, plan, name } = await planned(400)
    const aside = join(root, 'dir.aside')
    let swapped = false
    // the first restored file landing in dir/ swaps it: the apply is under way, most files still to go
    const watcher = watch(join(root, 'dir'), () => {
      if (swapped) return
      swapped = true
      renameSync(join(root, 'dir'), aside)
      symlinkSync(outside, join(root, 'dir'))
    })
    let outcome: 'applied' | Error
    try {
      outcome = await applyOutcome(engine, plan)
    } finally {
      watcher.close()
    }
    assert.ok(swapped, 'the directory was swapped during the apply')
    assert.ok(outcome instanceof Error, 'the apply refused')
    assert.match(outcome.message, REFUSAL)
    assert.deepEqual(filesOf(outside), { 'outside-only.txt': 'outside\n' }, 'nothing was written outside')

    // the person puts the directory back: the same plan applied again finishes the restore
    putBack(root, aside)
    await engine.apply(plan)
    await engine.apply(plan)
    const restored = filesOf(root)
    for (let i = 0; i < 400; i++) assert.equal(restored[name(i)], `before ${i}\n`)
    assert.equal(Object.keys(restored).length, 400, 'no temp file left behind')
  })

  it('never writes outside while a loop swaps the directory for a link, and refuses when it meets one', async (t) => {
    const { engine, root, outside, plan, name } = await planned(200)
    const outcomes: ('applied' | Error)[] = []
    const swapper = await startSwapping(join(root, 'dir'), outside)
    try {
      const until = Date.now() + 4000
      while (outcomes.length < 40 && Date.now() < until) {
        outcomes.push(await applyOutcome(engine, plan))
        assert.deepEqual(filesOf(outside), { 'outside-only.txt': 'outside\n' }, 'nothing was written outside')
      }
    } finally {
      await stopSwapping(swapper)
    }
    assert.deepEqual(filesOf(outside), { 'outside-only.txt': 'outside\n' }, 'nothing was written outside')
    const refused = outcomes.filter((o) => o instanceof Error && REFUSAL.test(o.message))
    t.diagnostic(`${refused.length} of ${outcomes.length} applies met the link and refused`)
    assert.ok(refused.length > 0, 'no apply met the link: the loop did not race')

    for (const extra of ['dir.swap-link', 'dir.swap-pad']) rmSync(join(root, extra), { force: true })
    putBack(root, join(root, 'dir.swap-real'))
    await engine.apply(plan)
    const restored = filesOf(root)
    for (let i = 0; i < 200; i++) assert.equal(restored[name(i)], `before ${i}\n`)
  })
})
