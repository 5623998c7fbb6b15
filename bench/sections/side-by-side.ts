// A provider against openai-compatible in the same daemon and the same run (the claude and
// copilot sections): one upstream in this process speaks the Responses stream on any path
// and the Messages stream on `…/v1/messages`, and notes when it wrote its first and last
// delta, on the same clock as the SSE reader here. Turns of the two profiles alternate
// (which goes first alternates too), each after the last one's work has settled, so load on
// the machine falls on both alike.
//
// - first token: upstream's first delta → the session stream's first output.delta, median of
//   40 turns each;
// - a 2,000-delta reply: upstream's first delta → run.ended, minus the upstream's own
//   first-to-last time, median of 15 each.
// The target: the provider within 10 % of openai-compatible. More turns than the runs
// section takes: on the shared 2-core machine single turns vary by tens of ms, and a
// comparison of two medians needs them steadier than one figure against a target does.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { v7 as uuidv7 } from 'uuid'
import { type BenchDaemon, median, ms, type Row } from '../lib.ts'
import { call, follow } from './runs.ts'

interface Turn {
  firstAt: number
  lastAt: number
}

const frame = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`
const event = (o: Record<string, unknown>) => `event: ${o.type}\n${frame(o)}`

/** The frames of one reply of `n` deltas in the wire the path names; `delta(i)` marks time. */
function reply(path: string, n: number, write: (text: string, delta: boolean) => void): void {
  if (path.endsWith('/v1/messages')) {
    write(
      event({ type: 'message_start', message: { id: 'm', usage: { input_tokens: 1, output_tokens: 1 } } }),
      false,
    )
    write(event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }), false)
    for (let i = 0; i < n; i++)
      write(
        event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `w${i} ` } }),
        true,
      )
    write(event({ type: 'content_block_stop', index: 0 }), false)
    write(
      event({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: n } }),
      false,
    )
    write(event({ type: 'message_stop' }), false)
    return
  }
  write(frame({ type: 'response.created', response: { id: 'r' } }), false)
  write(
    frame({ type: 'response.output_item.added', output_index: 0, item: { id: 'm', type: 'message' } }),
    false,
  )
  for (let i = 0; i < n; i++)
    write(
      frame({
        type: 'response.output_text.delta',
        item_id: 'm',
        output_index: 0,
        content_index: 0,
        delta: `w${i} `,
      }),
      true,
    )
  const usage = { input_tokens: 1, output_tokens: n, total_tokens: n + 1 }
  write(
    frame({ type: 'response.completed', response: { id: 'r', status: 'completed', output: [], usage } }),
    false,
  )
}

export interface BenchUpstream {
  url: string
  /** The paths requests came to (a section checks its provider's route was reached). */
  paths: Set<string>
  close(): void
}

interface Upstream extends BenchUpstream {
  state: { deltas: number; turns: Turn[] }
}

export async function upstream(): Promise<Upstream> {
  const state = { deltas: 1, turns: [] as Turn[] }
  const paths = new Set<string>()
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume()
    req.on('end', () => {
      const turn: Turn = { firstAt: 0, lastAt: 0 }
      state.turns.push(turn)
      paths.add(req.url ?? '')
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      reply(req.url ?? '', state.deltas, (text, delta) => {
        if (delta && turn.firstAt === 0) turn.firstAt = performance.now()
        res.write(text)
      })
      turn.lastAt = performance.now()
      res.end()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    state,
    paths,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => server.close(),
  }
}

/**
 * Turns of profile `base` (openai-compatible) and `other` (named `label` in the rows),
 * alternating, in the daemon `d` whose profiles reach `up`.
 */
export async function sideBySide(
  d: BenchDaemon,
  up: Upstream,
  workspace: string,
  base: string,
  other: string,
  label: string,
): Promise<Row[]> {
  const open = async (profile: string) => {
    const sid = uuidv7()
    await call(d, 'PUT', `/sessions/${sid}`, { kind: 'new', workspace, provider_profile: profile })
    return { sid, s: follow(d, sid) }
  }
  const sessions = { base: await open(base), other: await open(other) }
  await new Promise((r) => setTimeout(r, 200))
  const turn = async (name: 'base' | 'other') => {
    const { sid, s } = sessions[name]
    const first = s.next('output.delta')
    const ended = s.next('run.ended')
    const r = await call(d, 'PUT', `/sessions/${sid}/inputs/${uuidv7()}`, {
      kind: 'message',
      text: 'go',
      client_id: 'bench',
    })
    if (r.status !== 202) throw new Error(`input: ${r.status} ${JSON.stringify(r.json)}`)
    const t = { first: await first, ended: await ended }
    const u = up.state.turns.at(-1) as Turn
    return { first: t.first - u.firstAt, over: t.ended - u.firstAt - (u.lastAt - u.firstAt) }
  }
  const first = { base: [] as number[], other: [] as number[] }
  const over = { base: [] as number[], other: [] as number[] }
  const order = (i: number) => (i % 2 === 0 ? (['base', 'other'] as const) : (['other', 'base'] as const))
  const settle = () => new Promise((r) => setTimeout(r, 50))
  up.state.deltas = 1
  for (let i = 0; i < 43; i++) {
    for (const name of order(i)) {
      const t = await turn(name)
      if (i >= 3) first[name].push(t.first)
      await settle()
    }
  }
  up.state.deltas = 2_000
  for (let i = 0; i < 16; i++) {
    for (const name of order(i)) {
      const t = await turn(name)
      if (i >= 1) over[name].push(t.over)
      await settle()
    }
  }
  for (const { s } of Object.values(sessions)) s.close()
  const row = (figure: string, samples: { base: number[]; other: number[] }): Row[] => {
    const b = median(samples.base)
    const o = median(samples.other)
    return [
      { figure: `${figure}, openai-compatible`, measured: ms(b, 2) },
      {
        figure: `${figure}, ${label}`,
        measured: `${ms(o, 2)} (${((o / b - 1) * 100).toFixed(0)} %)`,
        target: '≤ openai-compatible + 10 %',
        ok: o <= b * 1.1,
      },
    ]
  }
  return [
    ...row('first token added over the upstream (p50 of 40)', first),
    ...row('2,000-delta reply: time over the upstream (p50 of 15)', over),
  ]
}
