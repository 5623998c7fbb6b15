// The web bench's streamed answer: a Responses upstream that sends 20,000 deltas at a model's
// pace (100 every 25 ms, about 5 s), and the page's frame times, from requestAnimationFrame,
// while they arrive in an open session.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser } from 'playwright-core'
import { v7 as uuidv7 } from 'uuid'
import { type BenchDaemon, sseFrame } from '../lib.ts'
import { call } from './runs.ts'

export const STREAM_DELTAS = 20_000
const BATCH = 100
const EVERY_MS = 25

export async function pacedUpstream() {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume()
    req.on('end', async () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(sseFrame({ type: 'response.created', response: { id: 'r' } }))
      res.write(
        sseFrame({ type: 'response.output_item.added', output_index: 0, item: { id: 'm', type: 'message' } }),
      )
      for (let i = 0; i < STREAM_DELTAS; i += BATCH) {
        let batch = ''
        for (let k = i; k < i + BATCH; k++)
          batch += sseFrame({
            type: 'response.output_text.delta',
            item_id: 'm',
            output_index: 0,
            content_index: 0,
            // Words, with a paragraph now and then, as an answer's Markdown would have.
            delta: k % 200 === 199 ? `w${k}\n\n` : `w${k} `,
          })
        res.write(batch)
        await new Promise((r) => setTimeout(r, EVERY_MS))
      }
      res.end(
        sseFrame({
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
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, close: () => server.close() }
}

export interface StreamRendering {
  /** Frame intervals (ms) from the first delta to the committed answer. */
  frames: number[]
  /** The page's script time over the same span (Chromium's ScriptDuration), ms. */
  scriptMs: number
}

/** How the open session's page kept up while the answer streamed. */
export async function streamFrameTimes(
  browser: Browser,
  d: BenchDaemon,
  workspace: string,
): Promise<StreamRendering> {
  const sid = uuidv7()
  await call(d, 'PUT', `/sessions/${sid}`, { kind: 'new', workspace })
  const context = await browser.newContext()
  const page = await context.newPage()
  try {
    await page.goto(`${d.url}/web/#token=${d.token}&route=/s/${sid}`)
    await page.waitForSelector('.session-screen[data-link="live"]')
    await call(d, 'PUT', `/sessions/${sid}/inputs/${uuidv7()}`, {
      kind: 'message',
      text: 'go',
      client_id: 'bench',
    })
    const cdp = await context.newCDPSession(page)
    await cdp.send('Performance.enable')
    const scriptSeconds = async () =>
      (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'ScriptDuration')?.value ?? 0
    await page.waitForSelector('.entry-assistant.active', { timeout: 60_000 })
    const scriptBefore = await scriptSeconds()
    await page.evaluate(() => {
      const g = globalThis as any
      g.__frames = []
      let last = g.performance.now()
      const tick = (t: number) => {
        g.__frames.push(t - last)
        last = t
        if (!g.__stopFrames) g.requestAnimationFrame(tick)
      }
      g.requestAnimationFrame(tick)
    })
    await page.waitForSelector('.entry-assistant[data-position]', { timeout: 120_000 })
    const scriptMs = ((await scriptSeconds()) - scriptBefore) * 1000
    const frames = (await page.evaluate(() => {
      const g = globalThis as any
      g.__stopFrames = true
      return g.__frames
    })) as number[]
    return { frames, scriptMs }
  } finally {
    await context.close()
  }
}
