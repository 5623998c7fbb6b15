// A profile's image_edge: images whose longest edge passes it reach the model scaled down to
// it, in their own type, in the message that carries them and in every later request; the
// history keeps the image as it was sent, and images that fit go unchanged.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import sharp from 'sharp'
import { answer } from '../fakes/tool-script.ts'
import { change } from '../settings/helpers.ts'
import { type AgentSetup, historyOf, newSession, runMessage, startAgent } from '../tools/agent-helpers.ts'
import { idle, message, putInput, waitSession } from './helpers.ts'

const EDGE = 256

async function imageOf(width: number, height: number, format: 'png' | 'jpeg' | 'webp'): Promise<string> {
  const raw = sharp({ create: { width, height, channels: 3, background: { r: 30, g: 120, b: 200 } } })
  return (await raw.toFormat(format).toBuffer()).toString('base64')
}

/** The images of the user messages of a Responses request, as {type, width, height, data}. */
async function sentImages(
  body: any,
): Promise<{ type: string; width: number; height: number; data: string }[]> {
  const urls: string[] = (body.input ?? [])
    .filter((item: any) => item.role === 'user')
    .flatMap((item: any) =>
      item.content.filter((p: any) => p.type === 'input_image').map((p: any) => p.image_url),
    )
  return Promise.all(
    urls.map(async (url) => {
      const [, type, data] = /^data:([^;]+);base64,(.*)$/.exec(url) ?? []
      const meta = await sharp(Buffer.from(data, 'base64')).metadata()
      return { type, width: meta.width ?? 0, height: meta.height ?? 0, data }
    }),
  )
}

describe('image_edge', () => {
  let s: AgentSetup
  before(async () => {
    s = await startAgent()
    await change(s.d, 'providers', { profiles: { fake: { image_edge: EDGE } } })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })

  it('scales larger images down to the edge in their own type, and leaves smaller ones alone', async () => {
    const wide = await imageOf(1200, 600, 'png')
    const tall = await imageOf(300, 900, 'jpeg')
    const small = await imageOf(200, 100, 'webp')
    const sid = await newSession(s)
    s.upstream.enqueue(answer('seen'), answer('still seen'))
    const images = [
      { media_type: 'image/png', data: wide },
      { media_type: 'image/jpeg', data: tall },
      { media_type: 'image/webp', data: small },
    ]
    assert.equal((await putInput(s.d, sid, message('look', { images }))).status, 202)
    await waitSession(s.d, sid, idle, 40_000)
    await runMessage(s, sid, 'and again', 40_000)

    for (const req of s.upstream.requests) {
      const [a, b, c] = await sentImages(req.body)
      assert.deepEqual([a.type, a.width, a.height], ['image/png', EDGE, EDGE / 2])
      assert.deepEqual([b.type, b.width, b.height], ['image/jpeg', Math.round(EDGE / 3), EDGE])
      assert.deepEqual([c.type, c.width, c.height], ['image/webp', 200, 100])
      assert.equal(c.data, small, 'an image that fits is sent byte for byte')
    }
    // The history holds what was sent.
    const user = (await historyOf(s.d, sid)).find((e: any) => e.kind === 'user')
    const field = user.content.images[0].field
    const stored = await s.d.request({ path: `/sessions/${sid}/history/${user.id}/${field}` })
    assert.equal(stored.status, 200)
    assert.equal(stored.body.toString('base64'), wide)
  })

  it('without image_edge, images go as they came', async () => {
    await change(s.d, 'providers', { profiles: { fake: { image_edge: null } } })
    const wide = await imageOf(1200, 600, 'png')
    const sid = await newSession(s)
    s.upstream.reset()
    s.upstream.enqueue(answer('seen'))
    assert.equal(
      (await putInput(s.d, sid, message('look', { images: [{ media_type: 'image/png', data: wide }] })))
        .status,
      202,
    )
    await waitSession(s.d, sid, idle, 40_000)
    const sent = await sentImages(s.upstream.requests.at(-1)?.body)
    assert.equal(sent[0]?.data, wide)
  })
})
