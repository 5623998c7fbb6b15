// Images attached to a message: strict base64, bytes that match the declared type.
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
