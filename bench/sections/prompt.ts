// The system text: its size per plain turn (hearth's own instructions, the environment block,
// the whole), and what reading the environment block costs the first request of a run. An
// upstream in this process notes when each request arrives; the figure is from the input's
// PUT to that arrival (median of 15 turns after 3 warm-up turns), in a workspace outside any
// repository and in a clean git repository of 5,000 tracked files, with the block on and off
// (the `instructions` settings), so the difference is the block's own cost; and the same for
// the first input of new sessions (each created a second before it, as a person would), and
// inputs of a used session sent half a second after the last run ended instead of at once.
import { execFileSync } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { v7 as uuidv7 } from 'uuid'
import {
  type BenchDaemon,
  homeWithConfig,
  median,
  ms,
  type Row,
  type Section,
  spawnDaemon,
  tempHome,
} from '../lib.ts'
import { call } from './runs.ts'

/** A Responses upstream answering each request at once; records arrival times and bodies. */
async function upstream() {
  const seen: { at: number; body: any }[] = []
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const at = performance.now()
    let raw = ''
    req.on('data', (c) => {
      raw += c
    })
    req.on('end', () => {
      seen.push({ at, body: JSON.parse(raw) })
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      const frame = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`
      res.write(frame({ type: 'response.created', response: { id: 'r' } }))
      res.end(
        frame({
          type: 'response.completed',
          response: {
            id: 'r',
            status: 'completed',
            output: [],
            usage: { input_tokens: 1, output_tokens: 1 },
          },
        }),
      )
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    seen,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => server.close(),
  }
}

/** A clean repository of `files` tracked files. */
function repository(files: number): string {
  const dir = tempHome('hearth-bench-repo-')
  for (let i = 0; i < files; i++) {
    const sub = join(dir, `d${Math.floor(i / 100)}`)
    if (i % 100 === 0) mkdirSync(sub)
    writeFileSync(join(sub, `f${i}.txt`), `${i}\n`)
  }
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@example.test', ...args], { cwd: dir })
  git('init', '-q')
  git('add', '-A')
  git('commit', '-q', '-m', 'files')
  return dir
}

/** Milliseconds from each input's PUT to the upstream's receiving its request. */
async function sendToRequest(
  d: BenchDaemon,
  up: Awaited<ReturnType<typeof upstream>>,
  workspace: string,
  pauseMs = 0,
): Promise<number[]> {
  const sid = uuidv7()
  await call(d, 'PUT', `/sessions/${sid}`, { kind: 'new', workspace })
  const samples: number[] = []
  for (let i = 0; i < 18; i++) {
    if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs))
    const ms = await sendToUpstream(d, up, sid)
    if (i >= 3) samples.push(ms)
    // The next input only once this run is over, so each one starts a run of its own.
    for (;;) {
      const s = await call(d, 'GET', `/sessions/${sid}`)
      if (s.json.status.phase === 'idle' && s.json.pending_inputs.length === 0) break
      await new Promise((r) => setTimeout(r, 2))
    }
  }
  return samples
}

/**
 * Pause before each input of a used session in the paced figure: a person reading the answer
 * and typing the next message (the daemon's idle work, a WAL checkpoint, happens meanwhile).
 */
const PERSON_PAUSE_MS = 500

/** Pause between creating a session and its first input: a person typing, the spare kernel warm. */
const NEW_SESSION_PAUSE_MS = 1000

/** Milliseconds from the first input of each of `n` new sessions to its upstream request. */
async function firstOfNewSessions(
  d: BenchDaemon,
  up: Awaited<ReturnType<typeof upstream>>,
  workspace: string,
  n: number,
): Promise<number[]> {
  const samples: number[] = []
  for (let i = 0; i < n; i++) {
    const sid = uuidv7()
    await call(d, 'PUT', `/sessions/${sid}`, { kind: 'new', workspace })
    await new Promise((r) => setTimeout(r, NEW_SESSION_PAUSE_MS))
    samples.push(await sendToUpstream(d, up, sid))
  }
  return samples
}

/** One input's PUT until the upstream receives its request (ms). */
async function sendToUpstream(
  d: BenchDaemon,
  up: Awaited<ReturnType<typeof upstream>>,
  sid: string,
): Promise<number> {
  const before = up.seen.length
  const sent = performance.now()
  await call(d, 'PUT', `/sessions/${sid}/inputs/${uuidv7()}`, { kind: 'message', text: 'hi', client_id: 'b' })
  while (up.seen.length === before) await new Promise((r) => setTimeout(r, 1))
  return (up.seen.at(-1)?.at ?? sent) - sent
}

async function setEnvironment(d: BenchDaemon, on: boolean): Promise<void> {
  const url = `${d.url}/settings?group=instructions`
  const authorization = `Bearer ${d.token}`
  const read = await fetch(url, { headers: { authorization } })
  const r = await fetch(url, {
    method: 'PATCH',
    headers: {
      authorization,
      'content-type': 'application/merge-patch+json',
      'if-match': read.headers.get('etag') ?? '',
    },
    body: JSON.stringify({ environment: on ? null : false }),
  })
  if (r.status !== 200) throw new Error(`PATCH instructions: ${r.status} ${await r.text()}`)
}

const kb = (chars: number) => `${(chars / 1000).toFixed(1)} KB`

export const prompt: Section = {
  name: 'prompt',
  description: 'system text size; send → first upstream request with the environment block on and off',
  async run(): Promise<Row[]> {
    const up = await upstream()
    const home = homeWithConfig({
      providers: {
        default_profile: 'b',
        profiles: { b: { endpoint: up.url, protocol: 'responses', model: 'm' } },
      },
    })
    const plain = tempHome('hearth-bench-plain-')
    const repo = repository(5_000)
    const d = await spawnDaemon(home)
    try {
      const latency: Record<string, number> = {}
      // What the block told of the repository: whether comparing its 5,000 files finished.
      let repoGit = ''
      for (const on of [true, false]) {
        await setEnvironment(d, on)
        latency[`plain ${on}`] = median(await sendToRequest(d, up, plain))
        latency[`repo ${on}`] = median(await sendToRequest(d, up, repo))
        if (on) repoGit = /^Git: .*$/m.exec(up.seen.at(-1)?.body.instructions ?? '')?.[0] ?? '(none)'
      }
      await setEnvironment(d, true)
      latency['new plain'] = median(await firstOfNewSessions(d, up, plain, 8))
      latency['paused plain'] = median(await sendToRequest(d, up, plain, PERSON_PAUSE_MS))
      await sendToRequest(d, up, plain)
      const system: string = up.seen.at(-1)?.body.instructions ?? ''
      const environment = system.slice(system.indexOf('<environment>'))
      const own = system.length - environment.length
      return [
        { figure: "system text of a plain turn: hearth's own instructions", measured: kb(own) },
        { figure: 'system text of a plain turn: the environment block', measured: kb(environment.length) },
        {
          figure: 'system text of a plain turn: in all (no AGENTS.md, no skills)',
          measured: kb(system.length),
        },
        {
          figure: 'send → first upstream request, no repository: block on / off (p50 of 15)',
          measured: `${ms(latency['plain true'])} / ${ms(latency['plain false'])}`,
        },
        {
          figure: 'send → first upstream request, clean 5,000-file repository: block on / off',
          measured: `${ms(latency['repo true'])} / ${ms(latency['repo false'])}`,
        },
        { figure: 'the block of the clean 5,000-file repository says', measured: repoGit },
        {
          figure:
            'send → first upstream request, no repository, block on, each input 500 ms after the last run',
          measured: ms(latency['paused plain']),
        },
        {
          figure:
            'send → first upstream request, first input of a new session, no repository, block on (p50 of 8)',
          measured: ms(latency['new plain']),
        },
      ]
    } finally {
      await d.stop()
      up.close()
      for (const dir of [plain, repo]) rmSync(dir, { recursive: true, force: true })
    }
  },
}
