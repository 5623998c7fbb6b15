// claude against openai-compatible in the same daemon and the same run: one upstream in this
// process speaks both the Responses stream and the Messages stream (reached by claude through
// HEARTH_CLAUDE_BASE_URL, with a hand-written account in creds.json) and notes when it wrote
// its first and last delta, on the same clock as the SSE reader here. Turns of the two
// profiles alternate, so load on the machine falls on both alike.
//
// - first token: upstream's first delta → the session stream's first output.delta, median of
//   40 turns each;
// - a 2,000-delta reply: upstream's first delta → run.ended, minus the upstream's own
//   first-to-last time, median of 15 each.
// The target: claude within 10 % of openai-compatible. More turns than the runs section
// takes: on the shared 2-core machine single turns vary by tens of ms, and a comparison
// of two medians needs them steadier than one figure against a target does.
import { writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { v7 as uuidv7 } from 'uuid'
import { homeWithConfig, median, ms, type Row, type Section, spawnDaemon } from '../lib.ts'
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

async function upstream() {
  const state = { deltas: 1, turns: [] as Turn[] }
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume()
    req.on('end', () => {
      const turn: Turn = { firstAt: 0, lastAt: 0 }
      state.turns.push(turn)
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
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => server.close(),
  }
}

export const claude: Section = {
  name: 'claude',
  description: 'claude vs openai-compatible: first token and a 2,000-delta reply',
  async run(): Promise<Row[]> {
    const up = await upstream()
    const home = homeWithConfig({
      providers: {
        default_profile: 'oc',
        profiles: {
          oc: { endpoint: `${up.url}/v1`, protocol: 'responses', model: 'm' },
          sub: { extension: 'claude', protocol: 'chat_completions', model: 'claude-sonnet-4-5-20250929' },
        },
      },
    })
    const account = { type: 'oauth', access: 'sk-ant-oat01-bench', expires: Date.now() + 86_400_000 }
    writeFileSync(join(home, 'creds.json'), JSON.stringify({ accounts: { claude: account } }), {
      mode: 0o600,
    })
    const d = await spawnDaemon(home, { env: { HEARTH_CLAUDE_BASE_URL: up.url } })
    try {
      const open = async (profile: string) => {
        const sid = uuidv7()
        await call(d, 'PUT', `/sessions/${sid}`, { kind: 'new', workspace: home, provider_profile: profile })
        return { sid, s: follow(d, sid) }
      }
      const sessions = { oc: await open('oc'), sub: await open('sub') }
      await new Promise((r) => setTimeout(r, 200))
      const turn = async (name: 'oc' | 'sub') => {
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
      const first = { oc: [] as number[], sub: [] as number[] }
      const over = { oc: [] as number[], sub: [] as number[] }
      // Which profile goes first alternates, and each turn starts after the last one's
      // work has settled: a turn right behind another's 2,000 deltas pays for its tail.
      const order = (i: number) => (i % 2 === 0 ? (['oc', 'sub'] as const) : (['sub', 'oc'] as const))
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
      const row = (figure: string, samples: { oc: number[]; sub: number[] }): Row[] => {
        const oc = median(samples.oc)
        const sub = median(samples.sub)
        return [
          { figure: `${figure}, openai-compatible`, measured: ms(oc, 2) },
          {
            figure: `${figure}, claude`,
            measured: `${ms(sub, 2)} (${((sub / oc - 1) * 100).toFixed(0)} %)`,
            target: '≤ openai-compatible + 10 %',
            ok: sub <= oc * 1.1,
          },
        ]
      }
      return [
        ...row('first token added over the upstream (p50 of 40)', first),
        ...row('2,000-delta reply: time over the upstream (p50 of 15)', over),
      ]
    } finally {
      await d.stop()
      up.close()
    }
  },
}
