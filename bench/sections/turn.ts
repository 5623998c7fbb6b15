// Turn: the figures a user feels on every turn, each beside a baseline measured in the same
// run, alternating with it. The client holds the session's stream and a kept-alive
// connection (bench/lib.ts heldConnection: a request is one write, its time is its first
// byte); the upstream is a Responses server in this process, on the same clock.
//
// - send → first upstream request, on a used session and on a new one (created, its stream
//   opened, then the input), and PUT → 202 for both;
// - first token: PUT → the first output.delta on the held stream (the upstream answers at once);
// - turn end: the upstream's last byte written → run.ended on the stream (the upstream
//   writes its last frame once the delta has reached the client, as a model streaming
//   slower than hearth does);
//   baseline for these: two Node servers in this process, the first appending a small file
//   and fdatasyncing it (a durable acknowledgment's floor), answering 202, then forwarding
//   the request to the second and relaying its answer onto a held stream;
// - a shell round trip (`echo hi`, the session's default sandbox, `auto` approval so nothing
//   asks): the upstream's last byte of the call → its next request; 10 round trips in one
//   run; hearth's overhead per round trip, the round trip less the same sandboxed argv
//   spawned from this process; baselines `bash -c`, `bash -lc` and the sandbox's argv, each
//   spawned directly after each measured run;
// - tree PSS (daemon + kernels) once ready with the spare kernel warm, beside a bare idle
//   `node -e 'setInterval(()=>{},1e3)'`, and two of them.
// The daemon and its commands run with HOME set to an empty directory: a login shell
// without a profile.
import { spawn } from 'node:child_process'
import { appendFileSync, closeSync, fdatasyncSync, openSync, rmSync } from 'node:fs'
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { v7 as uuidv7 } from 'uuid'
import { commandEnv } from '../../src/tools/exec/env.ts'
import { sandboxStatus, wrap } from '../../src/tools/exec/sandbox.ts'
import { hiddenPaths } from '../../src/tools/hidden-paths.ts'
import {
  type BenchDaemon,
  heldConnection,
  homeWithConfig,
  mb,
  median,
  ms,
  percentile,
  pssOf,
  type Row,
  responsesCall,
  responsesText,
  type Section,
  settledTreePss,
  spawnDaemon,
  tempHome,
  timeSpawn,
} from '../lib.ts'

const WARM_UP = 5
const TURNS = 30
const NEW_SESSIONS = 20
const TOOL_RUNS = 30
const LONG_RUNS = 5
const LONG_ROUND_TRIPS = 10
const PSS_DAEMONS = 3
/** Between turns, as a person pauses: the daemon's after-write work (checkpoints) runs in it. */
const PAUSE_MS = 300
const COMMAND = 'echo hi'

interface Reply {
  at: number
  lastByteAt: number
  /** Resolves once the last byte is written. */
  written: Promise<void>
}

/**
 * A Responses upstream: each request takes the next reply of `script` (a shell call or a
 * text); a text's last frame waits for `gate` when one is set. Notes each request's arrival
 * and its reply's last byte, and the gap from a call's last byte to the next request.
 */
async function upstream() {
  const state = {
    script: [] as ('call' | 'text')[],
    gate: null as Promise<unknown> | null,
    replies: [] as Reply[],
    gaps: [] as number[],
  }
  let lastWasCall = false
  let n = 0
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const reply = { at: performance.now(), lastByteAt: 0 } as Reply
    const previous = state.replies.at(-1)
    if (lastWasCall && previous) state.gaps.push(reply.at - previous.lastByteAt)
    state.replies.push(reply)
    const kind = state.script.shift() ?? 'text'
    lastWasCall = kind === 'call'
    const id = `r${n++}`
    let wrote!: () => void
    reply.written = new Promise<void>((r) => {
      wrote = r
    })
    const end = (last: string) =>
      res.end(last, () => {
        reply.lastByteAt = performance.now()
        wrote()
      })
    req.resume()
    req.on('end', async () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      const frames =
        kind === 'call'
          ? responsesCall(id, `call_${id}`, 'shell', { command: COMMAND })
          : responsesText(id, 'ok')
      for (const f of frames.slice(0, -1)) res.write(f)
      if (kind === 'text' && state.gate) await state.gate
      end(frames.at(-1) as string)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    state,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => server.close(),
  }
}
type Upstream = Awaited<ReturnType<typeof upstream>>

/** A held session stream: resolves each waiter with the arrival time and payload of its event. */
function sessionStream(d: BenchDaemon, sid: string) {
  const waiters: { event: string; resolve: (v: { at: number; payload: any }) => void }[] = []
  const req = httpRequest({
    host: '127.0.0.1',
    port: d.port,
    path: `/sessions/${sid}?tail=0`,
    headers: { authorization: `Bearer ${d.token}`, accept: 'text/event-stream' },
  })
  req.on('response', (res) => {
    let buf = ''
    res.setEncoding('utf8')
    res.on('data', (chunk: string) => {
      const at = performance.now()
      buf += chunk
      for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
        const f = buf.slice(0, i)
        buf = buf.slice(i + 2)
        const event = /^event: (.*)$/m.exec(f)?.[1]
        const k = waiters.findIndex((w) => w.event === event)
        if (k < 0) continue
        const data = /^data: (.*)$/m.exec(f)?.[1]
        waiters.splice(k, 1)[0].resolve({ at, payload: data ? JSON.parse(data).payload : null })
      }
    })
  })
  req.on('error', () => {})
  req.end()
  return {
    next: (event: string) =>
      new Promise<{ at: number; payload: any }>((resolve) => waiters.push({ event, resolve })),
    close: () => req.destroy(),
  }
}
type Stream = ReturnType<typeof sessionStream>

/** The daemon, its upstream, the held connection and what every request carries. */
interface Bench {
  d: BenchDaemon
  up: Upstream
  conn: ReturnType<typeof heldConnection>
  workspace: string
}

const headersOf = (d: BenchDaemon) => ({
  authorization: `Bearer ${d.token}`,
  'content-type': 'application/json',
})

async function newSession(b: Bench): Promise<{ sid: string; stream: Stream }> {
  const sid = uuidv7()
  const r = await b.conn.send(
    'PUT',
    `/sessions/${sid}`,
    { ...headersOf(b.d), 'if-none-match': '*' },
    JSON.stringify({ kind: 'new', workspace: b.workspace }),
  )
  if (r.status !== 201) throw new Error(`session: ${r.status} ${r.body}`)
  const stream = sessionStream(b.d, sid)
  await stream.next('snapshot')
  return { sid, stream }
}

interface TurnSample {
  toUpstream: number
  accepted: number
  firstToken: number
  turnEnd: number
}

/** One plain turn: the input PUT, the upstream's request, the first delta, run.ended. */
async function plainTurn(b: Bench, sid: string, stream: Stream): Promise<TurnSample> {
  const first = stream.next('output.delta')
  const ended = stream.next('run.ended')
  b.up.state.gate = first
  const before = b.up.state.replies.length
  const body = JSON.stringify({ kind: 'message', text: 'hi', client_id: 'bench' })
  const r = await b.conn.send('PUT', `/sessions/${sid}/inputs/${uuidv7()}`, headersOf(b.d), body)
  if (r.status !== 202) throw new Error(`input: ${r.status} ${r.body}`)
  const [f, e] = [await first, await ended]
  const reply = b.up.state.replies[before]
  await reply.written
  b.up.state.gate = null
  return {
    toUpstream: reply.at - r.sentAt,
    accepted: r.answeredAt - r.sentAt,
    firstToken: f.at - r.sentAt,
    turnEnd: e.at - reply.lastByteAt,
  }
}

/** One run of `calls` shell round trips then an answer; from its first upstream request to run.ended. */
async function toolRun(b: Bench, sid: string, stream: Stream, calls: number): Promise<number> {
  b.up.state.script = [...Array(calls).fill('call'), 'text']
  const ended = stream.next('run.ended')
  const before = b.up.state.replies.length
  const body = JSON.stringify({ kind: 'message', text: 'run it', client_id: 'bench' })
  const r = await b.conn.send('PUT', `/sessions/${sid}/inputs/${uuidv7()}`, headersOf(b.d), body)
  if (r.status !== 202) throw new Error(`input: ${r.status} ${r.body}`)
  const e = await ended
  if (e.payload?.outcome && e.payload.outcome !== 'completed')
    throw new Error(`run: ${JSON.stringify(e.payload)}`)
  if (b.up.state.replies.length - before !== calls + 1)
    throw new Error('the run did not make every round trip')
  return e.at - b.up.state.replies[before].at
}

/**
 * The floor of a turn without hearth: server A appends a small file and fdatasyncs it,
 * answers 202, forwards the request to server B over a kept-alive connection and relays B's
 * answer onto a stream the client holds. One sample per call of `sample()`.
 */
async function relayFloor(dir: string) {
  const file = join(dir, 'floor.log')
  const fd = openSync(file, 'a')
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  let arrivedAtB = 0
  let bWrote: Promise<number> = Promise.resolve(0)
  let gate: Promise<unknown> = Promise.resolve()
  const b = createServer((req, res) => {
    arrivedAtB = performance.now()
    req.resume()
    bWrote = new Promise((wrote) => {
      req.on('end', async () => {
        res.write('delta\n')
        await gate
        res.end('end\n', () => wrote(performance.now()))
      })
    })
  })
  let held: ServerResponse | undefined
  const fsyncs: number[] = []
  const a = createServer((req, res) => {
    if (req.method === 'GET') {
      held = res
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.flushHeaders()
      return
    }
    req.resume()
    req.on('end', () => {
      const t = performance.now()
      appendFileSync(fd, '{"kind":"message","text":"hi"}\n')
      fdatasyncSync(fd)
      fsyncs.push(performance.now() - t)
      res.writeHead(202, { 'content-length': '0' }).end()
      const out = httpRequest(
        { host: '127.0.0.1', port: portOf(b), method: 'POST', path: '/', agent },
        (up) => {
          up.on('data', (c) => held?.write(c))
        },
      )
      out.end('{}')
    })
  })
  for (const s of [a, b]) await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  const client = heldConnection(portOf(a))
  const chunks: { at: number; text: string }[] = []
  let onChunk = () => {}
  await new Promise<void>((resolve) => {
    httpRequest({ host: '127.0.0.1', port: portOf(a), path: '/' }, (res) => {
      res.setEncoding('utf8')
      res.on('data', (text: string) => {
        chunks.push({ at: performance.now(), text })
        onChunk()
      })
      resolve()
    }).end()
  })
  const chunk = (text: string) =>
    new Promise<number>((resolve) => {
      onChunk = () => {
        const c = chunks.find((x) => x.text.includes(text))
        if (c) resolve(c.at)
      }
      onChunk()
    })
  return {
    async sample(): Promise<TurnSample> {
      chunks.length = 0
      const first = chunk('delta')
      gate = first
      const r = await client.send('PUT', '/inputs', {}, '{"kind":"message","text":"hi"}')
      const firstAt = await first
      const endAt = await chunk('end')
      return {
        toUpstream: arrivedAtB - r.sentAt,
        accepted: r.answeredAt - r.sentAt,
        firstToken: firstAt - r.sentAt,
        turnEnd: endAt - (await bWrote),
      }
    },
    fsyncs,
    close() {
      client.close()
      held?.end()
      agent.destroy()
      a.close()
      b.close()
      closeSync(fd)
    },
  }
}

const portOf = (s: ReturnType<typeof createServer>) => (s.address() as AddressInfo).port

/** The argvs a shell call is measured against, spawned from this process with the commands' environment. */
function commandBaselines(b: Bench, home: string, emptyHome: string) {
  const env = commandEnv({ ...process.env, HOME: emptyHome })
  const policy = { isolate: true, network: false, hidden: hiddenPaths({}, emptyHome), gitWritable: false }
  const argvs = {
    bashC: ['bash', '-c', COMMAND],
    bashLc: ['bash', '-lc', COMMAND],
    sandboxed: wrap(['bash', '-lc', COMMAND], {
      cwd: b.workspace,
      policy,
      writableRoots: [b.workspace],
      home,
    }),
  }
  const samples = { bashC: [] as number[], bashLc: [] as number[], sandboxed: [] as number[] }
  return {
    samples,
    async sample() {
      for (const k of ['bashC', 'bashLc', 'sandboxed'] as const)
        samples[k].push(await timeSpawn(argvs[k], { cwd: b.workspace, env }))
    },
  }
}

/** PSS of bare idle Node processes, `count` of them at once, summed once they have settled. */
async function bareNodePss(count: number): Promise<number> {
  const procs = Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', 'setInterval(()=>{},1e3)'], { stdio: 'ignore' }),
  )
  try {
    await Promise.all(procs.map((p) => settledTreePss(p.pid as number)))
    return procs.reduce((sum, p) => sum + pssOf(p.pid as number), 0)
  } finally {
    for (const p of procs) p.kill('SIGKILL')
  }
}

/** Tree PSS of fresh daemons once ready with the spare kernel warm, and the same for bare Node. */
async function readyPss(up: Upstream, emptyHome: string) {
  const trees: { bytes: number; processes: number }[] = []
  for (let i = 0; i < PSS_DAEMONS; i++) {
    const d = await spawnDaemon(configHome(up), { env: { HOME: emptyHome } })
    try {
      trees.push(await settledTreePss(d.pid, 2))
    } finally {
      await d.stop()
    }
  }
  trees.sort((x, y) => x.bytes - y.bytes)
  return { tree: trees[Math.floor(trees.length / 2)], one: await bareNodePss(1), two: await bareNodePss(2) }
}

function configHome(up: Upstream): string {
  return homeWithConfig({
    providers: {
      default_profile: 'b',
      profiles: { b: { endpoint: up.url, protocol: 'responses', model: 'm' } },
    },
    tools: { approval_policy: 'auto' },
  })
}

const pick = (samples: TurnSample[], k: keyof TurnSample) => samples.map((s) => s[k])
const p50 = (xs: number[]) => median(xs)
const p90 = (xs: number[]) => percentile(xs, 90)
const both = (xs: number[]) => `${ms(p50(xs), 2)} / ${ms(p90(xs), 2)}`

/** Plain turns on a used session and on new ones, each used turn beside a relay floor sample. */
async function turns(b: Bench, workspaceDir: string) {
  const floor = await relayFloor(workspaceDir)
  const used: TurnSample[] = []
  const base: TurnSample[] = []
  const fresh: TurnSample[] = []
  try {
    const { sid, stream } = await newSession(b)
    for (let i = 0; i < WARM_UP + TURNS; i++) {
      const f = await floor.sample()
      const t = await plainTurn(b, sid, stream)
      if (i >= WARM_UP) [used.push(t), base.push(f)]
      await sleep(PAUSE_MS)
    }
    stream.close()
    for (let i = 0; i < 3 + NEW_SESSIONS; i++) {
      const s = await newSession(b)
      const t = await plainTurn(b, s.sid, s.stream)
      s.stream.close()
      if (i >= 3) fresh.push(t)
      await sleep(PAUSE_MS)
    }
    return { used, base, fresh, fsyncs: floor.fsyncs.slice(WARM_UP) }
  } finally {
    floor.close()
  }
}

/** Shell round trips: one per run, then runs of LONG_ROUND_TRIPS, each beside the commands spawned directly. */
async function shellRounds(b: Bench, home: string, emptyHome: string) {
  const commands = commandBaselines(b, home, emptyHome)
  const { sid, stream } = await newSession(b)
  for (let i = 0; i < 3; i++) await toolRun(b, sid, stream, 1)
  b.up.state.gaps.length = 0
  for (let i = 0; i < TOOL_RUNS; i++) {
    await toolRun(b, sid, stream, 1)
    await commands.sample()
    await sleep(PAUSE_MS)
  }
  const one = [...b.up.state.gaps]
  const long: number[] = []
  for (let i = 0; i < 1 + LONG_RUNS; i++) {
    const t = await toolRun(b, sid, stream, LONG_ROUND_TRIPS)
    if (i > 0) long.push(t)
    await sleep(PAUSE_MS)
  }
  stream.close()
  return { one, long, commands: commands.samples }
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
    const d = await spawnDaemon(home, { env: { HOME: emptyHome } })
    const b: Bench = { d, up, conn: heldConnection(d.port), workspace }
    let plain: Awaited<ReturnType<typeof turns>>
    let shell: Awaited<ReturnType<typeof shellRounds>>
    try {
      await sleep(1500) // the spare kernel is forked and warm
      plain = await turns(b, workspace)
      shell = await shellRounds(b, home, emptyHome)
    } finally {
      b.conn.close()
      await d.stop()
    }
    const pss = await readyPss(up, emptyHome)
    up.close()
    for (const dir of [emptyHome, workspace]) rmSync(dir, { recursive: true, force: true })
    return rows(plain, shell, pss, emptyHome)
  },
}

function rows(
  plain: Awaited<ReturnType<typeof turns>>,
  shell: Awaited<ReturnType<typeof shellRounds>>,
  pss: Awaited<ReturnType<typeof readyPss>>,
  emptyHome: string,
): Row[] {
  const { used, base, fresh } = plain
  const c = shell.commands
  const overhead = p50(shell.one) - p50(c.sandboxed)
  const target = (figure: string, v: number, limit: number, measured = ms(v, 2)): Row => ({
    figure,
    measured,
    target: `≤ ${limit} ms`,
    ok: v <= limit,
  })
  const floor = '└ baseline: 2 Node servers + 1 fdatasync'
  const bwrap = sandboxStatus().available ? 'bwrap available' : `no sandbox: ${sandboxStatus().reason}`
  return [
    { figure: 'HOME of the daemon and its commands (empty: no login profile)', measured: emptyHome },
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
    { figure: `${floor}: send → B receives (p50)`, measured: ms(p50(pick(base, 'toUpstream')), 2) },
    {
      figure: 'PUT input → 202, used / new session (p50)',
      measured: `${ms(p50(pick(used, 'accepted')), 2)} / ${ms(p50(pick(fresh, 'accepted')), 2)}`,
    },
    {
      figure: `${floor}: PUT → 202 (p50); the fdatasync alone (p50)`,
      measured: `${ms(p50(pick(base, 'accepted')), 2)}; ${ms(p50(plain.fsyncs), 2)}`,
    },
    {
      figure: 'first token: PUT → first output.delta, used / new session (p50)',
      measured: `${ms(p50(pick(used, 'firstToken')), 2)} / ${ms(p50(pick(fresh, 'firstToken')), 2)}`,
    },
    { figure: `${floor}: PUT → first relayed chunk (p50)`, measured: ms(p50(pick(base, 'firstToken')), 2) },
    target(
      'turn end: upstream last byte → run.ended, used session, p50 / p90',
      p50(pick(used, 'turnEnd')),
      1.5,
      both(pick(used, 'turnEnd')),
    ),
    { figure: `${floor}: B's last byte → relayed end, p50 / p90`, measured: both(pick(base, 'turnEnd')) },
    target(
      `shell round trip (\`${COMMAND}\`, sandbox on, ${bwrap}): last byte of the call → next request, p50 / p90 of ${shell.one.length}`,
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
      figure: `└ baseline: ${LONG_ROUND_TRIPS} × the sandbox's argv spawned directly (p50)`,
      measured: ms(LONG_ROUND_TRIPS * p50(c.sandboxed), 1),
    },
    target(
      "hearth's overhead per shell round trip: round trip − the sandbox's argv alone (p50s)",
      overhead,
      3,
    ),
    {
      figure: `tree PSS just after ready, spare kernel warm (p50 of ${PSS_DAEMONS} daemons, ${pss.tree.processes} processes)`,
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
