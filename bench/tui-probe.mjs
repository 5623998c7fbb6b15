// Loaded into the client by bench/tui-client.ts (`node --import`): records, in the client's
// own clock, when its first frame (the prompt) and the open session are written, and for
// every key it reads, how long until a frame holding that key is written. Appends JSON
// lines to $HEARTH_TUI_PROBE at exit. Plain JavaScript: a .ts file here would load Node's
// type stripper into the client before it starts, and the start is what is measured.
import { appendFileSync } from 'node:fs'

const out = process.env.HEARTH_TUI_PROBE
const marks = {}
const echoes = []
let pending = []

const write = process.stdout.write.bind(process.stdout)
process.stdout.write = (chunk, ...rest) => {
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
  return write(chunk, ...rest)
}

const emit = process.stdin.emit.bind(process.stdin)
process.stdin.emit = (event, ...args) => {
  if (event === 'data') {
    const key = String(args[0])
    // Only printable keys typed one by one are echoed as themselves.
    if (/^[a-z]$/.test(key)) pending.push({ key: `${typed}${key}`.slice(-6), at: performance.now() })
    if (/^[a-z]$/.test(key)) typed += key
  }
  return emit(event, ...args)
}
let typed = ''

process.on('exit', () => {
  const rss = process.memoryUsage().rss / 1048576
  appendFileSync(out, `${JSON.stringify({ ...marks, echoes, rss })}\n`)
})
