// Snapshots: what a run's snapshot costs on a 10,000-file, 200 MB workspace (400 directories of
// 25 files of 20 KB, half random bytes), measured on the engine in this process with real git:
//
// - a take with nothing changed: the first one (everything hashed and stored) reported alone,
//   then p50/p95 of 30 after a warm one (target: under 30 ms; a run pays it once, at its first
//   call that may change files);
// - a take after 100 files changed, p50 of 10;
// - a restore of 100 files (plan + apply: the run's changes put back), p50 of 10.
//
// The workspace and the home live in temp directories, deleted at the end.
import { randomBytes } from 'node:crypto'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { SnapshotEngine } from '../../src/snapshots/engine.ts'
import { median, ms, percentile, type Row, type Section, tempHome } from '../lib.ts'

const DIRS = 400
const FILES_PER_DIR = 25
const FILE_BYTES = 20 * 1024
const UNCHANGED_TAKES = 30
const ROUNDS = 10
const CHANGED = 100
const TARGET_MS = 30

function generate(root: string): string[] {
  const paths: string[] = []
  const text = Buffer.from('let x = 1 // a line of source\n'.repeat(FILE_BYTES / 2 / 30 + 1)).subarray(
    0,
    FILE_BYTES / 2,
  )
  for (let d = 0; d < DIRS; d++) {
    const dir = `pkg${String(d % 40).padStart(2, '0')}/mod${String(d).padStart(3, '0')}`
    mkdirSync(join(root, dir), { recursive: true })
    for (let f = 0; f < FILES_PER_DIR; f++) {
      const path = `${dir}/file${String(f).padStart(2, '0')}.ts`
      writeFileSync(join(root, path), Buffer.concat([randomBytes(FILE_BYTES / 2), text]))
      paths.push(path)
    }
  }
  return paths
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now()
  await fn()
  return performance.now() - t0
}

/** Rewrites `count` files spread over the workspace, different each round. */
function change(root: string, paths: string[], count: number, round: number): void {
  const step = Math.floor(paths.length / count)
  for (let i = 0; i < count; i++) {
    writeFileSync(join(root, paths[(i * step + round) % paths.length]), `changed in round ${round} ${i}\n`)
  }
}

export const snapshots: Section = {
  name: 'snapshots',
  description:
    'snapshot take (unchanged, 100 files changed) and restore of 100 files on 10,000 files, 200 MB',
  async run(): Promise<Row[]> {
    const root = tempHome('hearth-bench-workspace-')
    const home = tempHome()
    try {
      const paths = generate(root)
      const engine = new SnapshotEngine({ home, maxFileBytes: 10 * 1024 * 1024 })
      let n = 0
      const take = () => engine.take([root], `s${n++}`)
      const first = await timed(take)
      await take() // warm: the index's stat data and the tree are known
      const unchanged: number[] = []
      for (let i = 0; i < UNCHANGED_TAKES; i++) unchanged.push(await timed(take))

      const changed: number[] = []
      for (let r = 0; r < ROUNDS; r++) {
        change(root, paths, CHANGED, r)
        changed.push(await timed(take))
      }

      const restores: number[] = []
      for (let r = 0; r < ROUNDS; r++) {
        const before = await take()
        change(root, paths, CHANGED, 1000 + r)
        const after = await take()
        restores.push(
          await timed(async () => {
            const plan = await engine.plan(before.roots, after.roots, after.roots)
            if (plan.length !== CHANGED) throw new Error(`the restore plan has ${plan.length} files`)
            await engine.apply(plan)
          }),
        )
      }
      const storeBytes = await engine.bytes()
      return [
        { figure: 'snapshot: first take of 10,000 files, 200 MB', measured: ms(first, 0) },
        {
          figure: `snapshot: take, nothing changed, p50 of ${UNCHANGED_TAKES}`,
          measured: ms(median(unchanged)),
          target: `< ${TARGET_MS} ms`,
          ok: median(unchanged) < TARGET_MS,
        },
        { figure: 'snapshot: take, nothing changed, p95', measured: ms(percentile(unchanged, 95)) },
        {
          figure: `snapshot: take, ${CHANGED} files changed, p50 of ${ROUNDS}`,
          measured: ms(median(changed)),
        },
        {
          figure: `snapshot: restore of ${CHANGED} files (plan + apply), p50 of ${ROUNDS}`,
          measured: ms(median(restores)),
        },
        {
          figure: 'snapshot: store size after the bench',
          measured: `${(storeBytes / 1024 / 1024).toFixed(0)} MiB`,
        },
      ]
    } finally {
      rmSync(root, { recursive: true, force: true })
      rmSync(home, { recursive: true, force: true })
    }
  },
}
