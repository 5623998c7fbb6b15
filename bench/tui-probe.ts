// Loaded into the client by bench/tui-client.ts (`node --import`): records, in the client's
// own clock, when its first frame (the prompt) and the open session are written, and for
// every key it reads, how long until a frame holding that key is written. Appends JSON
// lines to $HEARTH_TUI_PROBE at exit.
import { appendFileSync } from 'node:fs'

const out = process.env.HEARTH_TUI_PROBE as string
const marks: Record<string, number> = {}
const echoes: number[] = []
let pending: { key: string; at: number }[] = []

const write = process.stdout.write.bind(process.stdout)
process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
  const raw = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')
  const text = raw.replace(/\x1b\[[0-9;]*m/g, '')
  const now = performance.now()
  if (marks.prompt === undefined && text.includes('────')) marks.prompt = now
  if (marks.session === undefined && text.includes('idle · ')) marks.session = now
  if (pending.length > 0) {
    pending = pending.filter((p) => {
      if (!text.includes(p.key)) return true
      echoes.push(now - p.at)
      return false
    })
  }
  return (write as (...a: unknown[]) => boolean)(chunk, ...rest)
}) as typeof process.stdout.write

const emit = process.stdin.emit.bind(process.stdin)
process.stdin.emit = ((event: string, ...args: unknown[]) => {
  if (event === 'data') {
    const key = String(args[0])
    // Only printable keys typed one by one are echoed as themselves.
    if (/^[a-z]$/.test(key)) pending.push({ key: `${typed}${key}`.slice(-6), at: performance.now() })
    if (/^[a-z]$/.test(key)) typed += key
  }
  return (emit as (...a: unknown[]) => boolean)(event, ...args)
}) as typeof process.stdin.emit
let typed = ''

process.on('exit', () => {
  const rss = process.memoryUsage().rss / 1048576
  appendFileSync(out, `${JSON.stringify({ ...marks, echoes, rss })}\n`)
})
