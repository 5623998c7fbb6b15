// A prompt's content blocks as one hearth message: text as it is, resource links as
// references the model can open with its tools, embedded resources as fenced context (the
// editor's copy, unsaved changes included), images as the message's images. Audio is not
// offered (initialize says so) and refused.
import { type ContentBlock, RequestError } from '@agentclientprotocol/sdk'
import { fenced } from './updates.ts'

export interface MessageInput {
  text: string
  images: { media_type: 'image/png' | 'image/jpeg' | 'image/webp'; data: string }[]
}

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp'])

/** A file URI as the path the model's tools take; any other URI as it is. */
export function pathOfUri(uri: string): string {
  if (!uri.startsWith('file://')) return uri
  try {
    return decodeURIComponent(new URL(uri).pathname)
  } catch {
    return uri
  }
}

function imageOf(mimeType: string, data: string): MessageInput['images'][number] {
  if (!IMAGE_TYPES.has(mimeType))
    throw RequestError.invalidParams(
      { mimeType },
      `images of type ${mimeType} are not taken (png, jpeg, webp are)`,
    )
  return { media_type: mimeType as MessageInput['images'][number]['media_type'], data }
}

function resourceText(block: Extract<ContentBlock, { type: 'resource' }>, input: MessageInput): string {
  const r = block.resource as { uri: string; text?: string; blob?: string; mimeType?: string | null }
  const where = pathOfUri(r.uri)
  if (typeof r.text === 'string') return `Context from ${where}:\n${fenced(r.text)}`
  if (r.mimeType && IMAGE_TYPES.has(r.mimeType) && typeof r.blob === 'string') {
    input.images.push(imageOf(r.mimeType, r.blob))
    return `(image ${where} attached)`
  }
  return `(${where}: binary content${r.mimeType ? ` of type ${r.mimeType}` : ''}, not included)`
}

/** The message a prompt's blocks make. */
export function messageOf(blocks: ContentBlock[]): MessageInput {
  const input: MessageInput = { text: '', images: [] }
  const parts: string[] = []
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        parts.push(block.text)
        break
      case 'resource_link': {
        const title = block.title ?? block.name
        parts.push(`[@${title}](${pathOfUri(block.uri)})`)
        break
      }
      case 'resource':
        parts.push(`\n\n${resourceText(block, input)}\n\n`)
        break
      case 'image':
        input.images.push(imageOf(block.mimeType, block.data))
        break
      default:
        throw RequestError.invalidParams(
          { type: block.type },
          `prompt content of type ${block.type} is not taken`,
        )
    }
  }
  // Text and links inline, as the editor wrote them around its mentions; context apart.
  input.text = parts.join('').trim()
  if (input.text.length === 0 && input.images.length === 0)
    throw RequestError.invalidParams(undefined, 'the prompt is empty')
  return input
}
