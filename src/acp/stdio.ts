// The editor's standard input as lines of JSON for the SDK's reader, with a line that is not
// JSON answered here with a parse error that says what is wrong with it (the SDK's says only
// "Parse error"), so an editor's author sees which line and why; the process keeps serving.
import { Readable } from 'node:stream'

/** The JSON-RPC error for a line that does not parse, naming the line and the parser's reason. */
export function parseErrorLine(lineNumber: number, line: string, reason: string): string {
  const start = line.length > 80 ? `${line.slice(0, 80)}…` : line
  return `${JSON.stringify({
    jsonrpc: '2.0',
    id: null,
    error: {
      code: -32700,
      message: `Parse error: line ${lineNumber} is not JSON (${reason})`,
      data: { line: lineNumber, start },
    },
  })}\n`
}

/**
 * Lines of `input` that parse as JSON, passed on whole (a line each) to the SDK; for any
 * other non-blank line, `answer` gets its parse error.
 */
export function jsonLines(input: Readable, answer: (line: string) => void): ReadableStream<Uint8Array> {
  let partial = ''
  let count = 0
  const decoder = new TextDecoder()
  const encoder = new TextEncoder()
  const out = new Readable({ read() {} })
  const take = (line: string) => {
    count++
    if (line.trim() === '') return
    try {
      JSON.parse(line)
    } catch (err) {
      answer(parseErrorLine(count, line, (err as Error).message))
      return
    }
    out.push(encoder.encode(`${line}\n`))
  }
  input.on('data', (chunk: Buffer) => {
    const lines = (partial + decoder.decode(chunk, { stream: true })).split('\n')
    partial = lines.pop() ?? ''
    for (const line of lines) take(line)
  })
  input.on('end', () => {
    if (partial !== '') take(partial)
    out.push(null)
  })
  input.on('error', (err) => out.destroy(err))
  return Readable.toWeb(out) as ReadableStream<Uint8Array>
}
