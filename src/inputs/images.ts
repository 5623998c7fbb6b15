// Images attached to a message: strict base64, bytes that match the declared type. And
// images on their way to a model: scaled down to the profile's image_edge.
import { createHash } from 'node:crypto'
import type { ImageMediaType, NeutralMessage, NeutralRequest } from '../providers/types.ts'
import { HearthError } from '../schemas/problems.ts'

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

const SIGNATURES: Record<string, (b: Buffer) => boolean> = {
  'image/png': (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/webp': (b) => b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP',
}

export interface DecodedImage {
  media_type: string
  data: Buffer
}

/** Decodes and checks every image; 400 invalid_image names the first one that fails. */
export function decodeImages(images: readonly { media_type: string; data: string }[]): DecodedImage[] {
  return images.map((img, i) => {
    if (img.data.length % 4 !== 0 || !BASE64.test(img.data))
      throw new HearthError('invalid_image', `/images/${i}/data is not standard base64`)
    const data = Buffer.from(img.data, 'base64')
    if (!SIGNATURES[img.media_type]?.(data))
      throw new HearthError('invalid_image', `/images/${i}/data is not ${img.media_type} data`)
    return { media_type: img.media_type, data }
  })
}

/** An image as a model request carries it: base64 data of a type providers take. */
interface RequestImage {
  media_type: ImageMediaType
  data: string
}

/** Images scaled before, by content and edge: a session sends its history's images every step. */
const SCALED_KEPT = 32
const scaled = new Map<string, Promise<RequestImage>>()

type Sharp = typeof import('sharp').default
let sharpLoading: Promise<Sharp> | undefined
/** sharp (libvips, a native addon of ~20 MB) loads the first time an image is measured, never at start. */
function loadSharp(): Promise<Sharp> {
  sharpLoading ??= import('sharp').then((m) => {
    // libvips would keep its own cache of operations (up to 50 MB) in a long-lived kernel;
    // the scaled results are kept above instead.
    m.default.cache(false)
    return m.default
  })
  return sharpLoading
}

/** The image with its longest edge at most `edge` pixels, in its own type; unchanged when it fits. */
async function fitImage(image: RequestImage, edge: number): Promise<RequestImage> {
  const sharp = await loadSharp()
  const input = Buffer.from(image.data, 'base64')
  const { width = 0, height = 0 } = await sharp(input).metadata()
  if (Math.max(width, height) <= edge) return image
  const format =
    image.media_type === 'image/png' ? 'png' : image.media_type === 'image/jpeg' ? 'jpeg' : 'webp'
  const out = await sharp(input)
    .rotate() // upright first (EXIF orientation), since the orientation tag is dropped
    .resize({ width: edge, height: edge, fit: 'inside', withoutEnlargement: true })
    .toFormat(format)
    .toBuffer()
  return { media_type: image.media_type, data: out.toString('base64') }
}

function fitCached(image: RequestImage, edge: number): Promise<RequestImage> {
  const key = `${edge}:${createHash('sha256').update(image.data).digest('base64url')}`
  let found = scaled.get(key)
  if (found) {
    scaled.delete(key) // most recently used goes last
  } else {
    // An image sharp cannot read goes as it came: the provider says what it makes of it.
    found = fitImage(image, edge).catch(() => image)
  }
  scaled.set(key, found)
  if (scaled.size > SCALED_KEPT) scaled.delete(scaled.keys().next().value as string)
  return found
}

/**
 * The request with every image whose longest edge passes `edge` scaled down to it (the
 * profile's image_edge): the messages' images and the images tools returned. A request
 * without images is returned as it is, and loads nothing.
 */
export async function fitRequestImages(request: NeutralRequest, edge: number): Promise<NeutralRequest> {
  const hasImages = request.messages.some((m) =>
    m.role === 'tool'
      ? (m.images?.length ?? 0) > 0
      : m.role === 'user' && m.content.some((p) => p.type === 'image'),
  )
  if (!hasImages) return request
  const messages = await Promise.all(
    request.messages.map(async (m): Promise<NeutralMessage> => {
      if (m.role === 'tool' && m.images?.length)
        return { ...m, images: await Promise.all(m.images.map((img) => fitCached(img, edge))) }
      if (m.role !== 'user') return m
      const content = await Promise.all(
        m.content.map(async (p) => (p.type === 'image' ? { ...p, ...(await fitCached(p, edge)) } : p)),
      )
      return { ...m, content }
    }),
  )
  return { ...request, messages }
}
