// bedrock against openai-compatible in the same run: one daemon, one upstream in this
// process that speaks both the Responses stream (`/v1/responses`) and Bedrock's Messages
// route (`/anthropic/v1/messages`, through HEARTH_BEDROCK_BASE_URL) and notes when it wrote
// its first and last delta. The bedrock profile signs every step with SigV4 (keys in the
// daemon's environment), so the figures include the credential chain and the signature.
//
// - first token added over the upstream: median of 20 turns per profile, alternating;
// - a 2,000-delta reply: time from the upstream's first delta to run.ended, minus the
//   upstream's own first-to-last time, median of 10 per profile;
// target: bedrock within 10 % of openai-compatible (on a loaded machine the spread between
// runs is larger than that; compare the two columns of one run).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { v7 as uuidv7 } from 'uuid'
import { homeWithConfig, median, ms, type Row, type Section, spawnDaemon } from '../lib.ts'
import { call, follow, turn } from './runs.ts'

interface Turn {
  firstAt: number
  lastAt: number
}

const frame = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`
const event = (type: string, o: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...o })}\n\n`

/** Writes one reply of `deltas` deltas in the wire the path names; returns its timing. */
function reply(path: string, res: ServerResponse, deltas: number): Turn {
  const turn: Turn = { firstAt: 0, lastAt: 0 }
  res.writeHead(200, { 'content-type': 'text/event-stream' })
  if (path === '/anthropic/v1/messages') {
    const usage = { input_tokens: 1, output_tokens: 1 }
    res.write(
      event('message_start', {
        message: { id: 'm', type: 'message', role: 'assistant', content: [], usage },
      }),
    )
    res.write(event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }))
    for (let i = 0; i < deltas; i++) {
      if (i === 0) turn.firstAt = performance.now()
      res.write(event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: `w${i} ` } }))
    }
    turn.lastAt = performance.now()
    res.write(event('content_block_stop', { index: 0 }))
    res.write(
      event('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: deltas } }),
    )
    res.end(event('message_stop', {}))
    return turn
  }
  res.write(frame({ type: 'response.created', response: { id: 'r' } }))
  res.write(
    frame({ type: 'response.output_item.added', output_index: 0, item: { id: 'm', type: 'message' } }),
  )
  for (let i = 0; i < deltas; i++) {
    if (i === 0) turn.firstAt = performance.now()
    res.write(
      frame({
        type: 'response.output_text.delta',
        item_id: 'm',
        output_index: 0,
        content_index: 0,
        delta: `w${i} `,
      }),
    )
  }
  turn.lastAt = performance.now()
  const usage = { input_tokens: 1, output_tokens: deltas, total_tokens: deltas + 1 }
  res.end(
    frame({ type: 'response.completed', response: { id: 'r', status: 'completed', output: [], usage } }),
  )
  return turn
}

async function upstream() {
  const state = { deltas: 1, turns: [] as Turn[], paths: new Set<string>() }
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume()
    req.on('end', () => {
      const path = req.url ?? ''
      state.paths.add(path)
      state.turns.push(reply(path, res, state.deltas))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { state, url, close: () => server.close() }
}

const within = (value: number, base: number) => value <= base * 1.1

export const bedrock: Section = {
  name: 'bedrock',
  description: 'bedrock (SigV4, Messages) vs openai-compatible: first token and a 2,000-delta reply',
  async run(): Promise<Row[]> {
    const up = await upstream()
    const home = homeWithConfig({
      providers: {
        default_profile: 'compat',
        profiles: {
          compat: { endpoint: `${up.url}/v1`, protocol: 'responses', model: 'm' },
          aws: { extension: 'bedrock', model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' },
        },
      },
    })
    const d = await spawnDaemon(home, {
      env: {
        HEARTH_BEDROCK_BASE_URL: up.url,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'AKIDBENCH',
        AWS_SECRET_ACCESS_KEY: 'bench-secret',
        AWS_SESSION_TOKEN: 'bench-token',
        AWS_BEARER_TOKEN_BEDROCK: '',
        AWS_PROFILE: '',
      },
    })
    try {
      const sessions: Record<string, { sid: string; s: ReturnType<typeof follow> }> = {}
      for (const profile of ['compat', 'aws']) {
        const sid = uuidv7()
        await call(d, 'PUT', `/sessions/${sid}`, { kind: 'new', workspace: home, provider_profile: profile })
        sessions[profile] = { sid, s: follow(d, sid) }
      }
      await new Promise((r) => setTimeout(r, 200))
      const first: Record<string, number[]> = { compat: [], aws: [] }
      const reply2k: Record<string, number[]> = { compat: [], aws: [] }
      up.state.deltas = 1
      for (let i = 0; i < 23; i++) {
        for (const p of ['compat', 'aws']) {
          const { sid, s } = sessions[p] as { sid: string; s: ReturnType<typeof follow> }
          const t = await turn(d, sid, s)
          if (i >= 3) (first[p] as number[]).push(t.first - (up.state.turns.at(-1) as Turn).firstAt)
        }
      }
      up.state.deltas = 2_000
      for (let i = 0; i < 11; i++) {
        for (const p of ['compat', 'aws']) {
          const { sid, s } = sessions[p] as { sid: string; s: ReturnType<typeof follow> }
          const t = await turn(d, sid, s)
          const u = up.state.turns.at(-1) as Turn
          if (i >= 1) (reply2k[p] as number[]).push(t.ended - u.firstAt - (u.lastAt - u.firstAt))
        }
      }
      for (const { s } of Object.values(sessions)) s.close()
      if (!up.state.paths.has('/anthropic/v1/messages')) throw new Error('no turn reached the bedrock route')
      const f = { compat: median(first.compat as number[]), aws: median(first.aws as number[]) }
      const r = { compat: median(reply2k.compat as number[]), aws: median(reply2k.aws as number[]) }
      return [
        {
          figure: 'first token added over the upstream, p50 of 20: openai-compatible / bedrock',
          measured: `${ms(f.compat, 2)} / ${ms(f.aws, 2)}`,
          target: 'bedrock ≤ +10 %',
          ok: within(f.aws, f.compat),
        },
        {
          figure: '2,000-delta reply over the upstream, p50 of 10: openai-compatible / bedrock',
          measured: `${ms(r.compat)} / ${ms(r.aws)}`,
          target: 'bedrock ≤ +10 %',
          ok: within(r.aws, r.compat),
        },
      ]
    } finally {
      await d.stop()
      up.close()
    }
  },
}
