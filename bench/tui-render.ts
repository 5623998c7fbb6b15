// Compares two terminal renderers for the full-screen client: Ink (React) and pi-tui (a
// differential renderer). Each runs in its own process with the same screen: the last rows
// of an answer that grows by 20,000 deltas, and an input line. Printed per renderer:
//   first frame   ms from process start to the first frame written (imports included)
//   echo          ms from a keystroke to the frame that shows it, while the deltas stream
//                 (median, p95, max over the keystrokes typed during the stream)
//   rss           resident memory after the stream, MB
// Run: node bench/tui-render.ts [deltas]   (a child: node bench/tui-render.ts --child ink|pi N)
import { spawn } from 'node:child_process'
import { EventEmitter } from 'node:events'
import { Writable } from 'node:stream'

const COLUMNS = 100
const ROWS = 40
const KEY_EVERY_MS = 25

interface Figures {
  renderer: string
  firstFrameMs: number
  echo: { median: number; p95: number; max: number; n: number }
  rssMb: number
  streamMs: number
}

/** The last `rows` lines of `text`, each cut to the width (the same view for both renderers). */
function tail(text: string, rows: number): string[] {
  const lines = text
    .slice(-rows * COLUMNS * 2)
    .split('\n')
    .slice(-rows)
  return lines.map((l) => l.slice(0, COLUMNS - 1))
}

function delta(i: number): string {
  return i % 12 === 11 ? `word${i}\n` : `word${i} `
}

/** Feeds deltas a few per macrotask (as SSE frames arrive) and types a key every 25 ms. */
async function drive(
  n: number,
  onDelta: (d: string) => void,
  typeKey: (ch: string) => void,
  echoed: (ch: string) => Promise<number>,
): Promise<{ echoes: number[]; streamMs: number }> {
  const echoes: number[] = []
  const start = performance.now()
  let sent = 0
  let typing = true
  const typer = (async () => {
    let k = 0
    while (typing) {
      await new Promise((r) => setTimeout(r, KEY_EVERY_MS))
      const ch = String.fromCharCode(97 + (k++ % 26))
      const t0 = performance.now()
      const seen = echoed(ch)
      typeKey(ch)
      echoes.push((await seen) - t0)
    }
  })()
  while (sent < n) {
    for (let j = 0; j < 20 && sent < n; j++) onDelta(delta(sent++))
    await new Promise((r) => setTimeout(r, 2)) // ~10,000 deltas a second, as a fast model streams
  }
  const streamMs = performance.now() - start
  typing = false
  await typer
  return { echoes, streamMs }
}

function summary(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b)
  const at = (q: number) => Number(s[Math.min(s.length - 1, Math.floor(q * s.length))].toFixed(2))
  return { median: at(0.5), p95: at(0.95), max: Number(s.at(-1)!.toFixed(2)), n: s.length }
}

/** A sink that records when a written frame contains the text awaited. */
class Screen {
  waiting: { text: string; resolve: (t: number) => void } | undefined
  first: number | undefined
  onFirst: (() => void) | undefined
  write(data: string) {
    if (this.first === undefined) {
      this.first = performance.now()
      this.onFirst?.()
    }
    if (this.waiting && data.includes(this.waiting.text)) {
      const w = this.waiting
      this.waiting = undefined
      w.resolve(performance.now())
    }
  }
  wait(text: string): Promise<number> {
    return new Promise((resolve) => {
      this.waiting = { text, resolve }
    })
  }
}

async function runPi(n: number): Promise<Figures> {
  const { TuiMainScreen, Text } = await import('@earendil-works/pi-tui')
  const screen = new Screen()
  let onInput: (d: string) => void = () => {}
  const terminal = {
    start(input: (d: string) => void) {
      onInput = input
    },
    stop() {},
    async drainInput() {},
    write: (d: string) => screen.write(d),
    columns: COLUMNS,
    rows: ROWS,
    kittyProtocolActive: false,
    moveBy() {},
    hideCursor() {},
    showCursor() {},
    clearLine() {},
    clearFromCursor() {},
    clearScreen() {},
    setTitle() {},
    setProgress() {},
    setProgramStatus() {},
  }
  let answer = ''
  let input = ''
  const view = {
    render: () => [...tail(answer, ROWS - 2), '', `> ${input.slice(-(COLUMNS - 2))}`],
    handleInput(d: string) {
      input += d
    },
    invalidate() {},
  }
  const tui = new TuiMainScreen(terminal)
  tui.addChild(view)
  tui.setFocus(view as unknown as InstanceType<typeof Text>)
  const firstFrame = new Promise<void>((r) => {
    screen.onFirst = r
  })
  tui.start()
  await firstFrame
  const firstFrameMs = screen.first!
  const { echoes, streamMs } = await drive(
    n,
    (d) => {
      answer += d
      tui.requestRender()
    },
    (ch) => onInput(ch),
    (ch) => screen.wait(`${input}${ch}`.slice(-12)),
  )
  tui.stop()
  return { renderer: 'pi-tui', firstFrameMs, echo: summary(echoes), rssMb: rss(), streamMs }
}

async function runInk(n: number): Promise<Figures> {
  const React = (await import('react')).default
  const { render, Box, Text, useInput } = await import('ink')
  const screen = new Screen()
  const stdout = Object.assign(
    new Writable({
      write(chunk, _enc, cb) {
        screen.write(String(chunk))
        cb()
      },
    }),
    { columns: COLUMNS, rows: ROWS, isTTY: true },
  )
  const stdin = Object.assign(new EventEmitter(), {
    isTTY: true,
    setRawMode() {},
    setEncoding() {},
    ref() {},
    unref() {},
    pending: [] as string[],
    read() {
      return this.pending.shift() ?? null
    },
  })
  let answer = ''
  let input = ''
  let bump: () => void = () => {}
  function App() {
    const [, setTick] = React.useState(0)
    const [typed, setTyped] = React.useState('')
    React.useEffect(() => {
      bump = () => setTick((t) => t + 1)
    }, [])
    useInput((ch) => {
      setTyped((t) => {
        input = t + ch
        return input
      })
    })
    const lines = tail(answer, ROWS - 2)
    return React.createElement(
      Box,
      { flexDirection: 'column', height: ROWS },
      ...lines.map((l, i) => React.createElement(Text, { key: i, wrap: 'truncate' }, l || ' ')),
      React.createElement(Text, { key: 'in' }, `> ${typed}`),
    )
  }
  const firstFrame = new Promise<void>((r) => {
    screen.onFirst = r
  })
  const app = render(React.createElement(App), {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    exitOnCtrlC: false,
    patchConsole: false,
  })
  await firstFrame
  const firstFrameMs = screen.first!
  const { echoes, streamMs } = await drive(
    n,
    (d) => {
      answer += d
      bump()
    },
    (ch) => {
      stdin.pending.push(ch)
      stdin.emit('readable')
    },
    (ch) => screen.wait(`${input}${ch}`.slice(-12)),
  )
  app.unmount()
  return { renderer: 'ink', firstFrameMs, echo: summary(echoes), rssMb: rss(), streamMs }
}

const rss = () => Number((process.memoryUsage().rss / 1048576).toFixed(1))

async function child(which: string, n: number) {
  const figures = which === 'ink' ? await runInk(n) : await runPi(n)
  process.stdout.write(`${JSON.stringify(figures)}\n`)
  process.exit(0)
}

async function parent(n: number) {
  for (const which of ['pi', 'ink']) {
    const out = await new Promise<string>((resolve, reject) => {
      const p = spawn(process.execPath, [import.meta.filename, '--child', which, String(n)], {
        stdio: ['ignore', 'pipe', 'inherit'],
      })
      let text = ''
      p.stdout.on('data', (d) => {
        text += d
      })
      p.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`${which} exited ${code}`))))
    })
    const f = JSON.parse(out) as Figures
    console.log(
      `${f.renderer.padEnd(7)} first frame ${f.firstFrameMs.toFixed(0)} ms · echo median ${f.echo.median} ms, ` +
        `p95 ${f.echo.p95} ms, max ${f.echo.max} ms (${f.echo.n} keys) · ${n} deltas in ${f.streamMs.toFixed(0)} ms · rss ${f.rssMb} MB`,
    )
  }
}

if (process.argv[2] === '--child') await child(process.argv[3], Number(process.argv[4]))
else await parent(Number(process.argv[2] ?? 20_000))
