// Turn: the figures a user feels on every turn, each beside a baseline measured in the same
// run, alternating with it. The client holds the session's stream and a kept-alive
// connection; the upstream is a Responses server in this process, on the same clock
// (bench/turn-driver.ts); the baselines are in bench/baselines.ts. The daemon and its
// commands run with HOME an empty directory (a login shell without a profile).
//
// - plain turns, a used session's and a new session's first in turn, each once the daemon
//   has checkpointed the previous turn's writes, as it has when a person sends the next
//   message (a new session is created, its stream opened and its input sent at once): the input's first byte → the upstream's request, → its 202, → the first
//   output.delta on the held stream (the upstream answers at once); the upstream's last
//   byte → run.ended (it writes its last frame once the delta has reached the client, as a
//   model streaming slower than hearth does); the CPU the daemon and kernels spent. Beside
//   them: two Node servers in this process, the first appending a small file and
//   fdatasyncing it (a durable acknowledgment's floor), answering 202, forwarding the
//   request to the second and relaying its answer onto a held stream;
// - shell round trips (`echo hi`, the session's default sandbox, approval policy `auto` so
//   nothing asks): the call's last byte → the next request, back to back; after each run
//   `bash -c`, `bash -lc` and the sandbox's own argv spawned from this process; hearth's
//   overhead is the round trip less the call's own time as the kernel measured it; then 10
//   round trips in one run;
// - tree PSS (daemon + kernels) once ready with the spare kernel warm, on a private copy
//   of the Node binary (bench/baselines.ts privateNode), beside bare idle Node: one, two.
import { rmSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { sandboxStatus } from '../../src/tools/exec/sandbox.ts'
import { bareNodePss, commandBaselines, privateNode, relayFloor, type TurnTimes } from '../baselines.ts'
import {
  heldConnection,
  mb,
  median,
  ms,
  percentile,
  type Row,
  type Section,
  settledTreePss,
  spawnDaemon,
  tempHome,
} from '../lib.ts'
import {
  type Bench,
  COMMAND,
  configHome,
  newSession,
  plainTurn,
  quiet,
  type Sched,
  toolRun,
  type Upstream,
  upstream,
} from '../turn-driver.ts'

const WARM_UP = 2
const TURNS = 20
const TOOL_RUNS = 30
const LONG_RUNS = 5
const LONG_ROUND_TRIPS = 10
const PSS_DAEMONS = 3
/** Between tool runs: short, so that no run waits behind the daemon's after-turn work. */
const TOOL_PAUSE_MS = 20

/** Tree PSS of fresh daemons once ready with the spare kernel warm, beside bare Node; all on a private Node. */
async function readyPss(up: Upstream, emptyHome: string) {
  const node = privateNode()
  const trees: { bytes: number; processes: number }[] = []
  try {
    for (let i = 0; i < PSS_DAEMONS; i++) {
      const d = await spawnDaemon(configHome(up), { env: { HOME: emptyHome, PATH: node.PATH } })
      try {
        trees.push(await settledTreePss(d.pid, 2))
      } finally {
        await d.stop()
      }
    }
    trees.sort((x, y) => x.bytes - y.bytes)
    const tree = trees[Math.floor(trees.length / 2)]
    return { tree, one: await bareNodePss(node.node, 1), two: await bareNodePss(node.node, 2) }
  } finally {
    node.remove()
  }
}

const pick = (samples: Timed[] | TurnTimes[], k: keyof TurnTimes) => samples.map((s) => s[k])
const p50 = (xs: number[]) => median(xs)
const p90 = (xs: number[]) => percentile(xs, 90)
const sched = (xs: Sched[]) =>
  `${ms(p50(xs.map((x) => x.cpuMs)), 2)} / ${ms(p50(xs.map((x) => x.waitMs)), 2)}`
/** Differences of samples taken side by side: the i-th of `a` less the i-th of `b`. */
const paired = (a: number[], b: number[]) => a.map((x, i) => x - b[i])
const both = (xs: number[]) => `${ms(p50(xs), 2)} / ${ms(p90(xs), 2)}`

type Timed = TurnTimes & Sched

/**
 * Plain turns, alternating: a used session's, then a new session's first (created, its
 * stream opened and the input sent at once, as a client creates a session when its first
 * message is sent), each from a quiet daemon, with a relay floor sample before each pair,
 * so that both figures and their baseline see the same moments of the machine.
 */
async function turns(b: Bench, workspaceDir: string) {
  const floor = await relayFloor(workspaceDir)
  const used: Timed[] = []
  const base: TurnTimes[] = []
  const fresh: Timed[] = []
  try {
    const held = await newSession(b)
    for (let i = 0; i < WARM_UP + TURNS; i++) {
      await quiet(b.d)
      const f = await floor.sample()
      await quiet(b.d) // again: the floor's own sync stays out of the turn
      const t = await plainTurn(b, held.sid, held.stream)
      await quiet(b.d)
      const s = await newSession(b)
      const n = await plainTurn(b, s.sid, s.stream)
      s.stream.close()
      if (i >= WARM_UP) [used.push(t), base.push(f), fresh.push(n)]
    }
    held.stream.close()
    return { used, base, fresh, fsyncs: floor.fsyncs.slice(WARM_UP) }
  } finally {
    floor.close()
  }
}

/** Shell round trips: one per run, then runs of LONG_ROUND_TRIPS, each beside the commands spawned directly. */
async function shellRounds(b: Bench, home: string, emptyHome: string) {
  const commands = commandBaselines({ command: COMMAND, workspace: b.workspace, home, emptyHome })
  const { sid, stream } = await newSession(b)
  for (let i = 0; i < 3; i++) await toolRun(b, sid, stream, 1)
  b.up.state.gaps.length = 0
  const kernelMs: number[] = []
  const runs: Sched[] = []
  const sandboxes = new Set<string>()
  for (let i = 0; i < TOOL_RUNS; i++) {
    const { meta, cpuMs, waitMs } = await toolRun(b, sid, stream, 1)
    kernelMs.push(meta[0].duration_ms)
    runs.push({ cpuMs, waitMs })
    sandboxes.add(meta[0].sandbox)
    await commands.sample()
    await sleep(TOOL_PAUSE_MS)
  }
  const one = [...b.up.state.gaps]
  const long: number[] = []
  const longBase: number[] = []
  const longRuns: Sched[] = []
  for (let i = 0; i < 1 + LONG_RUNS; i++) {
    const t = await toolRun(b, sid, stream, LONG_ROUND_TRIPS)
    const alone = await commands.sandboxedTimes(LONG_ROUND_TRIPS)
    if (i > 0) [long.push(t.span), longBase.push(alone), longRuns.push(t)]
    await sleep(TOOL_PAUSE_MS)
  }
  stream.close()
  const sandbox = [...sandboxes].join(', ')
  return { one, long, longBase, kernelMs, runs, longRuns, sandbox, commands: commands.samples }
}

export const turn: Section = {
  name: 'turn',
  description:
    'per-turn latency (send → upstream, first token, turn end, shell round trip) and PSS after ready, beside baselines',
  async run(): Promise<Row[]> {
    const up = await upstream()
    const emptyHome = tempHome('hearth-bench-HOME-')
    const workspace = tempHome('hearth-bench-ws-')
    const home = configHome(up)
    try {
      const { plain, shell } = await perTurn(up, home, emptyHome, workspace)
      const pss = await readyPss(up, emptyHome)
      return [
        { figure: 'HOME of the daemon and its commands (empty: no login profile)', measured: emptyHome },
        ...turnRows(plain),
        ...shellRows(shell),
        ...memoryRows(pss),
      ]
    } finally {
      up.close()
      for (const dir of [emptyHome, workspace]) rmSync(dir, { recursive: true, force: true })
    }
  },
}

/** The plain turns and shell round trips, on one daemon. */
async function perTurn(up: Upstream, home: string, emptyHome: string, workspace: string) {
  const d = await spawnDaemon(home, { env: { HOME: emptyHome } })
  const b: Bench = { d, up, conn: heldConnection(d.port), workspace }
  try {
    await sleep(1000) // the spare kernel is forked and warm
    const plain = await turns(b, workspace)
    const shell = await shellRounds(b, home, emptyHome)
    return { plain, shell }
  } finally {
    b.conn.close()
    await d.stop()
  }
}

const target = (figure: string, v: number, limit: number, measured = ms(v, 2)): Row => ({
  figure,
  measured,
  target: `≤ ${limit} ms`,
  ok: v <= limit,
})
const FLOOR = '└ baseline: 2 Node servers + 1 fdatasync'

function turnRows({ used, base, fresh, fsyncs }: Awaited<ReturnType<typeof turns>>): Row[] {
  const pair = (k: keyof TurnTimes) => `${ms(p50(pick(used, k)), 2)} / ${ms(p50(pick(fresh, k)), 2)}`
  return [
    target(
      `send → first upstream request, used session (p50 of ${used.length})`,
      p50(pick(used, 'toUpstream')),
      3,
    ),
    target(
      `send → first upstream request, new session (p50 of ${fresh.length})`,
      p50(pick(fresh, 'toUpstream')),
      5,
    ),
    { figure: `${FLOOR}: send → B receives (p50)`, measured: ms(p50(pick(base, 'toUpstream')), 2) },
    { figure: 'PUT input → 202, used / new session (p50)', measured: pair('accepted') },
    {
      figure: `${FLOOR}: PUT → 202 (p50); the fdatasync alone (p50)`,
      measured: `${ms(p50(pick(base, 'accepted')), 2)}; ${ms(p50(fsyncs), 2)}`,
    },
    {
      figure: 'first token: PUT → first output.delta, used / new session (p50)',
      measured: pair('firstToken'),
    },
    { figure: `${FLOOR}: PUT → first relayed chunk (p50)`, measured: ms(p50(pick(base, 'firstToken')), 2) },
    target(
      'turn end: upstream last byte → run.ended, used session, p50 / p90',
      p50(pick(used, 'turnEnd')),
      1.5,
      both(pick(used, 'turnEnd')),
    ),
    { figure: `${FLOOR}: B's last byte → relayed end, p50 / p90`, measured: both(pick(base, 'turnEnd')) },
    {
      figure:
        'the daemon and kernels per turn (PUT → run.ended), on a core / waiting for one: used session (p50)',
      measured: sched(used),
    },
    { figure: '└ the same, new session (p50)', measured: sched(fresh) },
  ]
}

function shellRows(shell: Awaited<ReturnType<typeof shellRounds>>): Row[] {
  const c = shell.commands
  const sandbox = sandboxStatus().available ? shell.sandbox : `${shell.sandbox}: ${sandboxStatus().reason}`
  return [
    target(
      `shell round trip (\`${COMMAND}\`, sandbox: ${sandbox}): call's last byte → next request, p50 / p90 of ${shell.one.length}`,
      p50(shell.one),
      13.3,
      both(shell.one),
    ),
    { figure: `└ baseline: \`bash -c '${COMMAND}'\` spawned directly, p50 / p90`, measured: both(c.bashC) },
    { figure: `└ baseline: \`bash -lc '${COMMAND}'\` spawned directly, p50 / p90`, measured: both(c.bashLc) },
    {
      figure: "└ baseline: the sandbox's argv (bwrap … bash -lc) spawned directly, p50 / p90",
      measured: both(c.sandboxed),
    },
    {
      figure: `${LONG_ROUND_TRIPS} shell round trips in one run: first upstream request → run.ended (p50 of ${shell.long.length})`,
      measured: ms(p50(shell.long), 1),
    },
    {
      figure: `└ baseline: the sandbox's argv spawned ${LONG_ROUND_TRIPS} times in a row right after each run (p50); the run less it (p50)`,
      measured: `${ms(p50(shell.longBase), 1)}; ${ms(p50(paired(shell.long, shell.longBase)), 1)}`,
    },
    target(
      "hearth's overhead per shell round trip: round trip − the call's own time as the kernel measured it (p50)",
      p50(paired(shell.one, shell.kernelMs)),
      3,
    ),
    {
      figure: "└ the call's own time as the kernel measured it (tool.ended duration_ms, whole ms), p50 / p90",
      measured: both(shell.kernelMs),
    },
    {
      figure:
        '└ round trip − the same command spawned cold in a sandbox of its own (bwrap … bash -lc), right after (p50)',
      measured: ms(p50(paired(shell.one, c.sandboxed)), 2),
    },
    {
      figure:
        "the daemon and kernels per run of 1 shell round trip, on a core / waiting for one (p50; the command's own not counted)",
      measured: sched(shell.runs),
    },
    { figure: `└ the same, a run of ${LONG_ROUND_TRIPS} round trips (p50)`, measured: sched(shell.longRuns) },
  ]
}

function memoryRows(pss: Awaited<ReturnType<typeof readyPss>>): Row[] {
  return [
    {
      figure: `tree PSS just after ready, spare kernel warm (p50 of ${PSS_DAEMONS} daemons, ${pss.tree.processes} processes; a private copy of node)`,
      measured: mb(pss.tree.bytes),
      target: '≤ 87 MB',
      ok: pss.tree.bytes <= 87e6,
    },
    {
      figure: "└ baseline: bare idle `node -e 'setInterval(()=>{},1e3)'`: one / two",
      measured: `${mb(pss.one)} / ${mb(pss.two)}`,
    },
  ]
}
