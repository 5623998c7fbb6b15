// A Gemini answer that came whole: Google's endpoints answer `streamGenerateContent`
// without `alt=sse` as a JSON array of GenerateContentResponse chunks, `generateContent` as
// one of them, and a proxy that buffers the stream may pass either on as
// `application/json`. Each chunk becomes one event of the stream the shared decoder reads,
// so the same rules hold: candidate 0, a terminal finishReason or the answer is
// incomplete, calls only on STOP, an `error` chunk mapped as in a stream.

/** The fields one of Google's chunks (or the Code Assist envelope around one) may carry. */
const CHUNK_FIELDS = ['candidates', 'promptFeedback', 'usageMetadata', 'error', 'response']

function isChunk(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  return CHUNK_FIELDS.some((field) => field in value)
}

/** The event-stream text of a whole Gemini answer, or null when `body` is none. */
export function geminiWhole(body: unknown): string | null {
  const chunks = Array.isArray(body) ? body : [body]
  if (chunks.length === 0 || !chunks.every(isChunk)) return null
  return chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('')
}
