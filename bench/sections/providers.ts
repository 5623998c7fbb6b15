// Providers side by side: the same turns through an openai-compatible profile (Responses),
// a vertex profile (Gemini SSE, with an application-default-credentials exchange per
// turn) and an antigravity profile (the same Gemini SSE inside the Cloud Code Assist
// envelope, a signed-in account written in creds.json), one daemon, upstreams in this
// process that note when they wrote their first and last delta. Figures as in the runs section, for each profile:
//
// - first token added over the upstream (p50 of 20 turns after 3 warm-up turns);
// - input to first token: from the input PUT to the first output.delta, which for vertex
//   includes reading the ADC file and the token exchange (p50 of the same 20; no target:
//   the exchange is one token request per turn by design);
// - a 2,000-delta reply: time over the upstream's own first-to-last (p50 of 15, after 1;
//   five moved the figure by ±10 % between runs).
//
// Turns alternate between the profiles. Target: vertex and antigravity within 10 % of
// openai-compatible (figures of a few ms swing more than that on a loaded machine: read
// several runs).
import { writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { v7 as uuidv7 } from 'uuid'
import { median, ms, type Row, type Section, spawnDaemon, tempHome } from '../lib.ts'
import { call, follow, turn } from './runs.ts'

/** 2,000-delta replies measured per profile, after one unmeasured. */
const REPLIES = 15

interface Timing {
  firstAt: number
  lastAt: number
}

interface Upstream {
  deltas: number
  turns: Timing[]
  url: string
  close: () => void
}

/** Serves `handler` on 127.0.0.1:0 once the request body has arrived. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => handler(req, res))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() }
}

/** A Responses upstream (the openai-compatible profile). */
async function responsesUpstream(): Promise<Upstream> {
  const up = { deltas: 1, turns: [] as Timing[] }
  const s = await serve((_req, res) => {
    const t: Timing = { firstAt: 0, lastAt: 0 }
    up.turns.push(t)
    const frame = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write(frame({ type: 'response.created', response: { id: 'r' } }))
    res.write(
      frame({ type: 'response.output_item.added', output_index: 0, item: { id: 'm', type: 'message' } }),
    )
    for (let i = 0; i < up.deltas; i++) {
      if (i === 0) t.firstAt = performance.now()
      const delta = {
        type: 'response.output_text.delta',
        item_id: 'm',
        output_index: 0,
        content_index: 0,
        delta: `w${i} `,
      }
      res.write(frame(delta))
    }
    t.lastAt = performance.now()
    const usage = { input_tokens: 1, output_tokens: up.deltas, total_tokens: up.deltas + 1 }
    res.end(
      frame({ type: 'response.completed', response: { id: 'r', status: 'completed', output: [], usage } }),
    )
  })
  return Object.assign(up, s, { url: `${s.url}/v1` })
}

/**
 * A Vertex Gemini upstream: one chunk per delta, STOP in a last chunk with a signature;
 * `envelope`: each chunk inside `{response, traceId}` as the Cloud Code Assist backend sends it.
 */
async function geminiUpstream(envelope = false): Promise<Upstream> {
  const up = { deltas: 1, turns: [] as Timing[] }
  const s = await serve((_req, res) => {
    const t: Timing = { firstAt: 0, lastAt: 0 }
    up.turns.push(t)
    const frame = (parts: unknown[], extra: Record<string, unknown> = {}) => {
      const chunk = {
        candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }],
        modelVersion: 'gemini-2.5-flash',
      }
      return `data: ${JSON.stringify(envelope ? { response: chunk, traceId: 't' } : chunk)}\r\n\r\n`
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    for (let i = 0; i < up.deltas; i++) {
      if (i === 0) t.firstAt = performance.now()
      res.write(frame([{ text: `w${i} ` }]))
    }
    t.lastAt = performance.now()
    const usageMetadata = {
      promptTokenCount: 1,
      candidatesTokenCount: up.deltas,
      totalTokenCount: up.deltas + 1,
    }
    res.end(frame([{ text: '', thoughtSignature: 'c2ln' }], { finishReason: 'STOP', usageMetadata }))
  })
  return Object.assign(up, s)
}

/** A token endpoint that takes any refresh grant. */
function tokenEndpoint() {
  let n = 0
  return serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ access_token: `ya29.bench-${++n}`, expires_in: 3599, token_type: 'Bearer' }))
  })
}

interface Side {
  profile: string
  up: Upstream
  sid: string
  stream: ReturnType<typeof follow>
  added: number[]
  fromInput: number[]
  reply: number[]
}

/**
 * Turns alternate between the two profiles (one of each, then again), so both see the same
 * machine load; a shared machine's load moves too much between blocks of turns.
 */
async function measure(d: Awaited<ReturnType<typeof spawnDaemon>>, home: string, sides: Side[]) {
  for (const side of sides) {
    await call(d, 'PUT', `/sessions/${side.sid}`, {
      kind: 'new',
      workspace: home,
      provider_profile: side.profile,
    })
    side.stream = follow(d, side.sid)
  }
  await new Promise((r) => setTimeout(r, 200))
  for (let i = 0; i < 23; i++) {
    for (const side of sides) {
      side.up.deltas = 1
      const t0 = performance.now()
      const t = await turn(d, side.sid, side.stream)
      if (i < 3) continue
      side.added.push(t.first - (side.up.turns.at(-1) as Timing).firstAt)
      side.fromInput.push(t.first - t0)
    }
  }
  for (let i = 0; i <= REPLIES; i++) {
    for (const side of sides) {
      side.up.deltas = 2_000
      const t = await turn(d, side.sid, side.stream)
      const u = side.up.turns.at(-1) as Timing
      if (i >= 1) side.reply.push(t.ended - u.firstAt - (u.lastAt - u.firstAt))
    }
  }
  for (const side of sides) side.stream.close()
}

function compare(figure: string, base: number, vertex: number, slackMs: number, name = 'vertex'): Row {
  const limit = base * 1.1 + slackMs
  return {
    figure: `${figure}: openai-compatible / ${name}`,
    measured: `${ms(base, 2)} / ${ms(vertex, 2)}`,
    target: `${name} ≤ +10 %${slackMs > 0 ? ` (+${slackMs} ms)` : ''}`,
    ok: vertex <= limit,
  }
}

export const providers: Section = {
  name: 'providers',
  description: 'vertex and antigravity against openai-compatible: first token, a 2,000-delta reply',
  async run(): Promise<Row[]> {
    const openai = await responsesUpstream()
    const gemini = await geminiUpstream()
    const cloudCode = await geminiUpstream(true)
    const token = await tokenEndpoint()
    const home = tempHome()
    const adc = join(home, 'adc.json')
    writeFileSync(
      adc,
      JSON.stringify({
        type: 'authorized_user',
        client_id: 'bench.apps.googleusercontent.com',
        client_secret: 'bench-secret',
        refresh_token: '1//bench',
        token_uri: `${token.url}/token`,
      }),
    )
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        providers: {
          default_profile: 'o',
          profiles: {
            o: { endpoint: openai.url, protocol: 'responses', model: 'm' },
            v: { extension: 'vertex', model: 'gemini-2.5-flash', project: 'bench', location: 'global' },
            a: { extension: 'antigravity', protocol: 'chat_completions', model: 'gemini-2.5-flash' },
          },
        },
      }),
    )
    // A signed-in antigravity account as the sign-in stores it, valid for the whole run.
    const account = {
      type: 'oauth',
      access: 'ya29.bench',
      refresh: '1//bench',
      expires: Date.now() + 3_600_000,
      projectId: 'bench',
    }
    writeFileSync(
      join(home, 'creds.json'),
      JSON.stringify({ accounts: { antigravity: account }, providers: {}, mcp: {} }),
    )
    const d = await spawnDaemon(home, {
      env: {
        HEARTH_VERTEX_BASE_URL: gemini.url,
        GOOGLE_APPLICATION_CREDENTIALS: adc,
        HEARTH_ANTIGRAVITY_BASE_URL: cloudCode.url,
        HEARTH_ANTIGRAVITY_VERSION: '1.18.3',
      },
    })
    try {
      const side = (profile: string, up: Upstream): Side => ({
        profile,
        up,
        sid: uuidv7(),
        stream: undefined as never,
        added: [],
        fromInput: [],
        reply: [],
      })
      const o = side('o', openai)
      const v = side('v', gemini)
      const a = side('a', cloudCode)
      await measure(d, home, [o, v, a])
      return [
        compare('first token added over the upstream (p50 of 20)', median(o.added), median(v.added), 0),
        {
          // Informational: the ADC exchange is one token request per turn by design (no cache).
          figure:
            'input to first token (vertex: ADC exchange included; p50 of 20): openai-compatible / vertex',
          measured: `${ms(median(o.fromInput), 2)} / ${ms(median(v.fromInput), 2)}`,
        },
        compare(
          `2,000-delta reply: time over the upstream (p50 of ${REPLIES})`,
          median(o.reply),
          median(v.reply),
          0,
        ),
        compare(
          'first token added over the upstream (p50 of 20)',
          median(o.added),
          median(a.added),
          0,
          'antigravity',
        ),
        compare(
          'input to first token (p50 of 20)',
          median(o.fromInput),
          median(a.fromInput),
          0,
          'antigravity',
        ),
        compare(
          `2,000-delta reply: time over the upstream (p50 of ${REPLIES})`,
          median(o.reply),
          median(a.reply),
          0,
          'antigravity',
        ),
      ]
    } finally {
      await d.stop()
      openai.close()
      gemini.close()
      cloudCode.close()
      token.close()
    }
  },
}
