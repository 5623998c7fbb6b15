// Runs the built usage core (dist/usage-core.mjs) as the daemon's driver will: a child process
// of this Node, a minimal environment plus the feed's variables. Every run is checked for
// the credentials the fakes issued: none may appear in its output.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { builtInCorePath } from '../../src/usage-core/path.ts'
import { ISSUED } from '../fakes/usage-endpoints.ts'

export interface CoreRun {
  code: number
  stdout: string
  stderr: string
  /** The parsed report (stdout is one JSON object). */
  report: any
}

export function runCore(args: string[], env: Record<string, string>): Promise<CoreRun> {
  const home = mkdtempSync(join(tmpdir(), 'usage-core-home-'))
  const base = { PATH: process.env.PATH ?? '', HOME: home, LANG: 'C.UTF-8', TMPDIR: tmpdir() }
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [builtInCorePath(), ...args],
      { env: { ...base, ...env } },
      (err, stdout, stderr) => {
        const code = err ? Number((err as { code?: number }).code ?? -1) : 0
        if (err && typeof (err as { code?: unknown }).code !== 'number') return reject(err)
        for (const secret of Object.values(ISSUED).filter((s) => s.length > 20))
          assert.ok(
            !`${stdout}${stderr}`.includes(secret),
            `no credential in the core's output: ${stdout}${stderr}`,
          )
        assert.equal(stderr, '', 'the core writes nothing on stderr')
        resolve({ code, stdout, stderr, report: JSON.parse(stdout) })
      },
    )
  })
}

/** A fresh CODEX_HOME holding the hand-off's auth.json (`tokens` as given). */
export function codexHome(tokens: Record<string, string>): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'usage-core-codex-')), 'codex')
  mkdirSync(dir, { mode: 0o700 })
  writeFileSync(join(dir, 'auth.json'), JSON.stringify({ tokens }), { mode: 0o600 })
  return dir
}

/** The report without its `usage.updatedAt`, after checking that one is an ISO 8601 time of now. */
export function withoutUpdatedAt(report: any): any {
  const at = Date.parse(report.usage.updatedAt)
  assert.ok(Math.abs(Date.now() - at) < 60_000, `updatedAt is now: ${report.usage.updatedAt}`)
  const { updatedAt: _, ...usage } = report.usage
  return { ...report, usage }
}

export const iso = (epoch: number) =>
  new Date(epoch < 1e12 ? epoch * 1000 : epoch).toISOString().replace('.000Z', 'Z')
