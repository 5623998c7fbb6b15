// An MCP tool result (`CallToolResult`) as a hearth tool result: text parts joined, images a
// provider can take passed on as images, everything else described in a line; `isError`
// makes the outcome `error`. The model's text is bounded like a file read's.
import { scrub } from '../../mcp/config.ts'
import type { ToolImage, ToolResult } from '../../tools/types.ts'

/** Characters of a result the model gets at most (as a file read). */
export const MCP_RESULT_MAX_CHARS = 50 * 1024
/** Raw image bytes passed on at most (base64 of it stays under the smallest vendor cap). */
const MAX_IMAGE_BYTES = 3_750_000
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp'])

interface ContentPart {
  type: string
  text?: string
  data?: string
  mimeType?: string
  uri?: string
  name?: string
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string }
}

function describe(part: ContentPart, images: ToolImage[]): string {
  switch (part.type) {
    case 'text':
      return part.text ?? ''
    case 'image': {
      const bytes = Buffer.byteLength(part.data ?? '', 'base64')
      if (IMAGE_TYPES.has(part.mimeType ?? '') && bytes <= MAX_IMAGE_BYTES && images.length < 16) {
        images.push({ media_type: part.mimeType as ToolImage['media_type'], data: part.data ?? '' })
        return `[image ${images.length}: ${part.mimeType}, ${bytes} bytes]`
      }
      return `[an image (${part.mimeType}, ${bytes} bytes) that cannot be passed on]`
    }
    case 'audio':
      return `[audio (${part.mimeType}, ${Buffer.byteLength(part.data ?? '', 'base64')} bytes) not passed on]`
    case 'resource': {
      const r = part.resource ?? {}
      if (typeof r.text === 'string') return `[resource ${r.uri}]\n${r.text}`
      return `[resource ${r.uri} (${r.mimeType ?? 'binary'}, ${Buffer.byteLength(r.blob ?? '', 'base64')} bytes)]`
    }
    case 'resource_link':
      return `[resource link ${part.uri}${part.name ? ` (${part.name})` : ''}]`
    default:
      return `[content of type ${part.type}]`
  }
}

export function toToolResult(
  result: Record<string, unknown>,
  meta: Record<string, unknown>,
  secrets: readonly string[],
): ToolResult {
  const images: ToolImage[] = []
  const parts = (Array.isArray(result.content) ? result.content : []) as ContentPart[]
  let text = parts.map((p) => describe(p, images)).join('\n')
  // A tool that answers only with structured content: the model reads its JSON.
  if (text === '' && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent)
  const full = text.length
  if (full > MCP_RESULT_MAX_CHARS)
    text = `${text.slice(0, MCP_RESULT_MAX_CHARS)}\n[cut: the result had ${full} characters; the first ${MCP_RESULT_MAX_CHARS} are shown]`
  const isError = result.isError === true
  return {
    outcome: isError ? 'error' : 'ok',
    // A server may echo what it was given; its own secrets never reach the history.
    output: scrub(text, secrets),
    ...(images.length > 0 ? { images } : {}),
    meta: { ...meta, is_error: isError, ...(full > MCP_RESULT_MAX_CHARS ? { output_chars: full } : {}) },
  }
}
