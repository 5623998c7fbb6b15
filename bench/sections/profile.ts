// Where start-up time goes: starts the daemon under `node --cpu-prof`, keeps the samples up
// to the moment daemon.json is written, and attributes each sample's own time to the package
// or source folder it ran in. Bundle code is mapped back to its source through the source
// map beside a bundle built without its layout (the daemon's, a kernel's), else through the
// `// node_modules/...` and `// src/...` comments esbuild writes before every module; Node's
// own modules keep their `node:` names (undici is `node:internal/deps/undici/undici`). The
// profiler adds overhead, so read the shares, not the absolute milliseconds. Not part of the
// default run: `node bench/run.ts profile`.
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { SourceMap } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { BIN, ms, ROOT, type Row, type Section, tempHome } from '../lib.ts'

const RUNS = 5
const SHOWN = 14
const DIST = join(ROOT, 'dist')

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }
  children?: number[]
}
interface Profile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

/** Maps a 0-based line and column of a bundle file (an entry or a chunk) to the source module there. */
function bundleModules(file: string): (line: number, column: number) => string {
  const map = join(DIST, `${file}.map`)
  if (existsSync(map)) {
    const sm = new SourceMap(JSON.parse(readFileSync(map, 'utf8')))
    return (line, column) => {
      const entry = sm.findEntry(line, column) as { originalSource?: string }
      const source = entry.originalSource?.replace(/^(?:file:\/\/)?(?:.*?\/)?(?=(?:node_modules|src)\/)/, '')
      return source || '(bundle top-level code and runtime helpers)'
    }
  }
  const starts: [number, string][] = []
  readFileSync(join(DIST, file), 'utf8')
    .split('\n')
    .forEach((l, i) => {
      const m = /^\/\/ ((?:node_modules|src)\/\S+)$/.exec(l)
      if (m) starts.push([i, m[1]])
    })
  return (line) => {
    let lo = 0
    let hi = starts.length - 1
    let found = '(bundle top-level code and runtime helpers)'
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      if (starts[mid][0] <= line) {
        found = starts[mid][1]
        lo = mid + 1
      } else hi = mid - 1
    }
    return found
  }
}

/** node_modules/@scope/pkg/… → node_modules/@scope/pkg; src/a/b.ts → src/a. */
function packageOf(path: string): string {
  const parts = path.split('/')
  if (parts[0] === 'node_modules') return parts.slice(0, parts[1]?.startsWith('@') ? 3 : 2).join('/')
  return parts.slice(0, 2).join('/')
}

/**
 * Each sample goes to the innermost frame that is hearth's own code or a package (bundle code
 * mapped through its module comments), so work inside Node's internals counts for the code
 * that asked for it. Undici, which Node loads lazily for the fetch globals (Request,
 * Response), is named on its own wherever it is on the stack.
 */
function attribute(
  profile: Profile,
  moduleAt: (file: string, line: number, column: number) => string,
): { until: number; self: Map<string, number> } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const ownerOf = (leaf: number): string | 'ready' => {
    let owner: string | undefined
    for (let id: number | undefined = leaf; id !== undefined; id = parent.get(id)) {
      const { url, functionName, lineNumber, columnNumber } = (byId.get(id) as ProfileNode).callFrame
      if (functionName === 'writeRuntimeInfo') return 'ready'
      if (owner) continue
      if (url.includes('deps/undici')) owner = 'node: undici (Request/Response/fetch globals)'
      else if (url.includes('/dist/'))
        owner = packageOf(moduleAt(url.slice(url.lastIndexOf('/') + 1), lineNumber, columnNumber))
      else if (url.includes('node_modules/')) owner = packageOf(url.slice(url.indexOf('node_modules/')))
    }
    if (owner) return owner
    const leafName = (byId.get(leaf) as ProfileNode).callFrame.functionName
    if (leafName === '(garbage collector)') return 'V8: garbage collector'
    if (leafName === '(program)') return 'V8: outside JavaScript (parse, compile, native)'
    return 'node: bootstrap and module loading'
  }
  const self = new Map<string, number>()
  let t = 0
  for (let i = 0; i < profile.samples.length; i++) {
    const owner = ownerOf(profile.samples[i])
    if (owner === 'ready') break // daemon.json is being written
    const dt = profile.timeDeltas[i] / 1000
    t += dt
    if ((byId.get(profile.samples[i]) as ProfileNode).callFrame.functionName !== '(idle)')
      self.set(owner, (self.get(owner) ?? 0) + dt)
  }
  return { until: t, self }
}

async function profiledStart(): Promise<Profile> {
  const home = tempHome()
  const dir = mkdtempSync(join(tmpdir(), 'hearth-prof-'))
  try {
    const proc = spawn(
      process.execPath,
      [
        '--cpu-prof',
        `--cpu-prof-dir=${dir}`,
        '--cpu-prof-interval=100',
        BIN,
        'daemon',
        '--home',
        home,
        '--port',
        '0',
      ],
      { stdio: 'ignore', env: { ...process.env, HEARTH_HOME: '' } },
    )
    const closed = new Promise<void>((res) => proc.once('close', () => res()))
    const t0 = performance.now()
    while (!existsSync(join(home, 'daemon.json'))) {
      if (proc.exitCode !== null || performance.now() - t0 > 15_000) throw new Error('daemon did not start')
      await sleep(2)
    }
    proc.kill('SIGTERM') // a clean exit writes the profile
    await closed
    const [file] = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))
    return JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile
  } finally {
    rmSync(home, { recursive: true, force: true })
    rmSync(dir, { recursive: true, force: true })
  }
}

export const profile: Section = {
  name: 'profile',
  description: `CPU profile of start-up until daemon.json, CPU by package (mean of ${RUNS}, under the profiler)`,
  async run(): Promise<Row[]> {
    const maps = new Map<string, (line: number, column: number) => string>()
    const moduleAt = (file: string, line: number, column: number) => {
      if (!maps.has(file)) maps.set(file, bundleModules(file))
      return (maps.get(file) as (line: number, column: number) => string)(line, column)
    }
    await profiledStart() // warm the caches
    const totals = new Map<string, number>()
    let sampled = 0
    for (let i = 0; i < RUNS; i++) {
      const { until, self } = attribute(await profiledStart(), moduleAt)
      sampled += until
      for (const [k, v] of self) totals.set(k, (totals.get(k) ?? 0) + v)
    }
    const rows: Row[] = [{ figure: 'profiled start to daemon.json (mean)', measured: ms(sampled / RUNS) }]
    const sorted = [...totals].sort((a, b) => b[1] - a[1])
    for (const [k, v] of sorted.slice(0, SHOWN)) rows.push({ figure: `  ${k}`, measured: ms(v / RUNS) })
    const rest = sorted.slice(SHOWN).reduce((s, [, v]) => s + v, 0)
    rows.push({ figure: '  everything else', measured: ms(rest / RUNS) })
    return rows
  },
}
