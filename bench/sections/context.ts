// Context and compaction on a session of 10,000 history entries (2,000 turns of a user
// message, an answer with a tool call, the call, its result and a final answer), written
// straight into state.db so the bench does not wait for 2,000 model turns:
//
// - context summary: GET /sessions/{id}/context on one connection, p99 of 200 reads after
//   20 unmeasured ones (target ≤ 20 ms), beside the same loop on a plain session read;
// - a turn's request assembly: buildRequest and its estimate (what a run does before each
//   step) run in this process on the same database, before and after a compaction: the
//   first (nothing kept from an earlier request), then p99 of 50 (target ≤ 5 ms);
// - compaction's own daemon time without the model: planning, the summary request (the
//   transcript of the older turns) and the commit, each run on a fresh copy of the
//   database, median and max of 10 (target ≤ 50 ms); and POST .../compaction with strategy
//   truncate (no model call) over HTTP.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { v7 as uuidv7 } from 'uuid'
import { commitCompaction, planCompaction, summaryRequest } from '../../src/context/compact.ts'
import { estimateRequest } from '../../src/context/estimate.ts'
import { buildRequest } from '../../src/runs/step/request.ts'
import { SessionsCore } from '../../src/sessions/core.ts'
import { Hub } from '../../src/sessions/hub.ts'
import { type Db, openStore } from '../../src/store/db.ts'
import { median, ms, percentile, type Row, type Section, spawnDaemon, tempHome } from '../lib.ts'
import { call } from './runs.ts'

const TURNS = 2_000
const ARGUMENTS = JSON.stringify({ path: 'src/some/file.ts', offset: 1, limit: 200 })

/** 2,000 turns of five entries each, as runs commit them (10,000 entries; the web bench reads them too). */
export function seed(db: Db, sessionId: string): void {
  const at = new Date().toISOString()
  const insert = db.prepare(
    'INSERT INTO entries (session_id, position, grp, kind, created_at, content) VALUES (?, ?, ?, ?, ?, ?)',
  )
  db.transaction(() => {
    let position = 0
    let grp = 0
    for (let t = 1; t <= TURNS; t++) {
      const runId = uuidv7()
      const turnGroup = ++grp
      const callGroup = ++grp
      const callId = `call_${t}`
      const add = (g: number, kind: string, content: unknown) =>
        insert.run(sessionId, ++position, g, kind, at, JSON.stringify(content))
      add(turnGroup, 'user', { text: `Question ${t}: ${'please look at this '.repeat(5)}`, images: [] })
      add(turnGroup, 'assistant', {
        text: `Let me read the file for question ${t}.`,
        status: 'complete',
        run_id: runId,
        tool_calls: [{ type: 'tool_call', id: callId, name: 'read', arguments: ARGUMENTS }],
      })
      add(callGroup, 'tool_call', { run_id: runId, call_id: callId, name: 'read', arguments: ARGUMENTS })
      add(callGroup, 'tool_result', {
        run_id: runId,
        call_id: callId,
        name: 'read',
        outcome: 'ok',
        output: `1\tline of the file ${t}\n`.repeat(40),
        meta: {},
        images: [],
      })
      add(turnGroup, 'assistant', {
        text: `The answer to question ${t} is in the file. ${'It explains the detail. '.repeat(8)}`,
        status: 'complete',
        run_id: runId,
        tool_calls: [],
      })
    }
    db.prepare('UPDATE sessions SET transcript_count = ? WHERE id = ?').run(position, sessionId)
  })()
}

function coreOn(path: string): { core: SessionsCore; db: Db } {
  const db = openStore(path)
  return { core: new SessionsCore(db, new Hub(), Date.now), db }
}

/** CPU time of this process (user and system) in ms: unlike wall time, not waiting for a core. */
function cpuMs(): number {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

/**
 * Request assembly as a run's steps do it: the first in this process (nothing kept yet, as
 * a session's first step after a start) alone, then 50 more after 9 unmeasured ones.
 */
function assembly(core: SessionsCore, sessionId: string): { first: number; wall: number[]; cpu: number[] } {
  const wall: number[] = []
  const cpu: number[] = []
  let first = 0
  for (let i = 0; i < 60; i++) {
    const t0 = performance.now()
    const c0 = cpuMs()
    const a = buildRequest(core, sessionId, 'model', null)
    estimateRequest(a.request, a.compaction !== null)
    if (i === 0) first = performance.now() - t0
    if (i >= 10) {
      wall.push(performance.now() - t0)
      cpu.push(cpuMs() - c0)
    }
  }
  return { first, wall, cpu }
}

/** One compaction without its model call on a fresh copy of the database. */
function compactionOnce(
  source: string,
  sessionId: string,
): { plan: number; request: number; commit: number; cpu: number } {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-bench-compaction-'))
  const path = join(dir, 'state.db')
  copyFileSync(source, path)
  const { core, db } = coreOn(path)
  try {
    const row = core.require(sessionId)
    const c0 = cpuMs()
    const t0 = performance.now()
    const plan = planCompaction(core, row, {
      strategy: 'summarize',
      keep_turns: 2,
      trigger: 'manual',
      fixed_tokens: 0,
    })
    if (!plan) throw new Error('nothing to compact')
    const t1 = performance.now()
    summaryRequest(core, sessionId, plan, 'model', 200_000, undefined)
    const t2 = performance.now()
    const mark = commitCompaction(core, sessionId, plan, 'A summary.', 'model', () => true)
    if (!mark) throw new Error('not committed')
    const t3 = performance.now()
    return { plan: t1 - t0, request: t2 - t1, commit: t3 - t2, cpu: cpuMs() - c0 }
  } finally {
    db.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

export const context: Section = {
  name: 'context',
  description: 'context summary, request assembly and compaction on a 10,000-entry session',
  async run(): Promise<Row[]> {
    const home = tempHome()
    const rows: Row[] = []
    let d = await spawnDaemon(home, { keepHome: true, env: { HEARTH_KERNEL_SPARE: '0' } })
    const sid = uuidv7()
    await call(d, 'PUT', `/sessions/${sid}`, { kind: 'new', workspace: home })
    await d.stop()
    const dbPath = join(home, 'state.db')
    {
      const { db } = coreOn(dbPath)
      seed(db, sid)
      db.pragma('wal_checkpoint(TRUNCATE)')
      db.close()
    }
    d = await spawnDaemon(home, { keepHome: true, env: { HEARTH_KERNEL_SPARE: '0' } })
    try {
      // The same loop on a plain session read: what any request costs on the machine now.
      const plain: number[] = []
      for (let i = 0; i < 220; i++) {
        const t0 = performance.now()
        await call(d, 'GET', `/sessions/${sid}?tail=0`)
        if (i >= 20) plain.push(performance.now() - t0)
      }
      rows.push({
        figure: 'for comparison: GET /sessions/{id}?tail=0 (HTTP): p50 / p99',
        measured: `${ms(median(plain))} / ${ms(percentile(plain, 99))}`,
      })
      const reads: number[] = []
      for (let i = 0; i < 220; i++) {
        const t0 = performance.now()
        const r = await call(d, 'GET', `/sessions/${sid}/context`)
        if (r.status !== 200) throw new Error(`context: ${r.status} ${JSON.stringify(r.json)}`)
        if (i >= 20) reads.push(performance.now() - t0)
      }
      const p99 = percentile(reads, 99)
      rows.push({
        figure: 'context summary, 10,000 entries (HTTP): p50 / p99',
        measured: `${ms(median(reads))} / ${ms(p99)}`,
        target: '≤ 20 ms p99',
        ok: p99 <= 20,
      })
      const t0 = performance.now()
      const r = await call(d, 'POST', `/sessions/${sid}/compaction`, { strategy: 'truncate', keep_turns: 2 })
      const truncate = performance.now() - t0
      if (r.json?.compaction?.outcome !== 'completed')
        throw new Error(`compaction: ${JSON.stringify(r.json)}`)
      rows.push({ figure: 'POST compaction, strategy truncate (HTTP, no model)', measured: ms(truncate) })
    } finally {
      await d.stop()
    }
    // The daemon wrote a truncation; measure on the session as seeded.
    const seeded = join(mkdtempSync(join(tmpdir(), 'hearth-bench-seeded-')), 'state.db')
    {
      const { db } = coreOn(dbPath)
      db.prepare("DELETE FROM entries WHERE session_id = ? AND kind = 'compaction'").run(sid)
      db.prepare('UPDATE sessions SET transcript_count = ? WHERE id = ?').run(TURNS * 5, sid)
      db.pragma('wal_checkpoint(TRUNCATE)')
      db.close()
      copyFileSync(dbPath, seeded)
    }
    {
      const { core, db } = coreOn(seeded)
      const whole = assembly(core, sid)
      rows.push({
        figure: 'request assembly, 10,000 entries uncompacted: first; then p50 / p99 (CPU p50 / p99)',
        measured: `${ms(whole.first)}; ${ms(median(whole.wall))} / ${ms(percentile(whole.wall, 99))} (${ms(median(whole.cpu))} / ${ms(percentile(whole.cpu, 99))})`,
      })
      db.close()
    }
    const parts = Array.from({ length: 10 }, () => compactionOnce(seeded, sid))
    const totals = parts.map((p) => p.plan + p.request + p.commit)
    const cpu = parts.map((p) => p.cpu)
    rows.push({
      figure: 'compaction, daemon time without the model: median / max wall (CPU)',
      measured: `${ms(median(totals))} / ${ms(Math.max(...totals))} (${ms(median(cpu))} / ${ms(Math.max(...cpu))}); plan ${ms(median(parts.map((p) => p.plan)))}, request ${ms(median(parts.map((p) => p.request)))}, commit ${ms(median(parts.map((p) => p.commit)))}`,
      target: '≤ 50 ms',
      ok: median(totals) <= 50,
    })
    {
      const { core, db } = coreOn(seeded)
      const row = core.require(sid)
      const plan = planCompaction(core, row, {
        strategy: 'summarize',
        keep_turns: 2,
        trigger: 'manual',
        fixed_tokens: 0,
      })
      if (plan) commitCompaction(core, sid, plan, 'A summary.', 'model', () => true)
      const compacted = assembly(core, sid)
      const p99 = percentile(compacted.wall, 99)
      rows.push({
        figure: 'request assembly, 10,000 entries compacted (keep 2 turns): p50 / p99 (CPU p50 / p99)',
        measured: `${ms(median(compacted.wall))} / ${ms(p99)} (${ms(median(compacted.cpu))} / ${ms(percentile(compacted.cpu, 99))})`,
        target: '≤ 5 ms',
        ok: p99 <= 5,
      })
      db.close()
    }
    rmSync(home, { recursive: true, force: true })
    rmSync(join(seeded, '..'), { recursive: true, force: true })
    return rows
  },
}
