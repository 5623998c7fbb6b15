// The full-screen client itself, in tmux against a real daemon and the fake upstream, with
// bench/tui-probe.mjs loaded into it to read its own clock:
//   prompt    ms from the client's process start to its first frame (the prompt takes keys
//             from then on), and to the session being open; median of 15 starts
//   echo      ms from the client reading a key to its writing a frame that shows the key,
//             while an answer streams 20,000 deltas (median, p95, max)
//   rss       the client's resident memory when it quits after that answer, MB
// Also printed: `hearth --version` on the same machine, the floor any command pays (Node's
// start and the launcher). Run: npm run build && node bench/tui-client.ts
import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { BIN, pathWithThisNode, tempHome } from '../test/helpers/daemon.ts'
import { Tmux } from '../test/helpers/tmux.ts'
import { startWithUpstream } from '../test/inputs/helpers.ts'

const PROBE = join(import.meta.dirname, 'tui-probe.mjs')
const s = await startWithUpstream()
const probeFile = join(tempHome('hearth-tui-probe-'), 'probe.jsonl')
const STARTS = 15
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b)
const median = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)]
const p95 = (xs: number[]) => sorted(xs)[Math.floor(xs.length * 0.95)]

interface Probe {
  prompt?: number
  session?: number
  echoes: number[]
  rss: number
}

/** `hearth` run as a user runs it: the launcher itself, whose first line carries its V8 flags. */
function open(): Tmux {
  return Tmux.start([BIN, '--home', s.d.home], {
    columns: 100,
    rows: 30,
    cwd: s.d.home,
    env: { HEARTH_TUI_PROBE: probeFile, NODE_OPTIONS: `--import=${PROBE}`, PATH: pathWithThisNode() },
  })
}

async function until(t: Tmux, test: (screen: string) => boolean, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!test(t.screen())) {
    if (Date.now() > deadline) throw new Error(`timed out; the screen:\n${t.screen()}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

async function quit(t: Tmux): Promise<void> {
  t.keys('C-c', 'C-c')
  await until(t, () => t.ended)
  t.kill()
}

const probes = (): Probe[] =>
  readFileSync(probeFile, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))

try {
  // Interleaved, so both see the same load.
  const version: number[] = []
  for (let i = 0; i < STARTS; i++) {
    const t0 = performance.now()
    execFileSync(BIN, ['--version'], { env: { ...process.env, PATH: pathWithThisNode() } })
    version.push(performance.now() - t0)
    const t = open()
    await until(t, (x) => /idle · /.test(x))
    await quit(t)
  }
  const starts = probes()
  console.log(
    `prompt: median ${median(starts.map((p) => p.prompt!)).toFixed(0)} ms from process start ` +
      `(fastest ${Math.min(...starts.map((p) => p.prompt!)).toFixed(0)} ms); ` +
      `session open: ${median(starts.map((p) => p.session!)).toFixed(0)} ms; ` +
      `hearth --version (whole process): ${median(version).toFixed(0)} ms (fastest ${Math.min(...version).toFixed(0)} ms); ` +
      `rss of an idle client: ${median(starts.map((p) => p.rss)).toFixed(0)} MB`,
  )

  rmSync(probeFile)
  const deltas = Array.from({ length: 20_000 }, (_, i) => (i % 12 === 11 ? `w${i}\n\n` : `w${i} `))
  s.upstream.enqueue({ text: deltas, delayMs: 1 })
  const t = open()
  await until(t, (x) => /idle · /.test(x))
  t.type('stream')
  t.keys('Enter')
  await until(t, (x) => /w\d{3,}/.test(x))
  for (let i = 0; i < 80; i++) {
    t.type(String.fromCharCode(97 + (i % 26)))
    await new Promise((r) => setTimeout(r, 100))
  }
  await until(t, (x) => x.includes('w19999') && /idle · /.test(x))
  await quit(t)
  const [run] = probes()
  console.log(
    `echo while 20,000 deltas stream: median ${median(run.echoes).toFixed(1)} ms, p95 ${p95(run.echoes).toFixed(1)} ms, ` +
      `max ${Math.max(...run.echoes).toFixed(1)} ms (${run.echoes.length} keys); client rss ${run.rss.toFixed(0)} MB`,
  )
} finally {
  await s.d.stop()
  await s.upstream.close()
}
