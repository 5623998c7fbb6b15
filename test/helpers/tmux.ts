// A real terminal for tests of the full-screen client: a tmux server on its own socket
// (`tmux -L`), one window running a command. Tests type with send-keys and read the screen
// with capture-pane, polling until a condition holds or a deadline passes.
import { execFileSync } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'

export interface TmuxOptions {
  columns?: number
  rows?: number
  env?: Record<string, string>
  /** The working directory of the command. */
  cwd?: string
}

let counter = 0

export class Tmux {
  readonly socket: string

  private constructor(socket: string) {
    this.socket = socket
  }

  /** Starts `command` (argv) in a new tmux server of its own. */
  static start(command: string[], o: TmuxOptions = {}): Tmux {
    const t = new Tmux(`hearth-test-${process.pid}-${++counter}`)
    const env = Object.entries(o.env ?? {}).flatMap(([k, v]) => ['-e', `${k}=${v}`])
    t.tmux(
      'new-session',
      '-d',
      '-s',
      'main',
      '-x',
      String(o.columns ?? 100),
      '-y',
      String(o.rows ?? 30),
      ...env,
      ...(o.cwd ? ['-c', o.cwd] : []),
      // The window stays after the command ends, so its last screen can be read.
      `tmux set-option -w remain-on-exit on 2>/dev/null; exec ${command.map(shellQuote).join(' ')}`,
    )
    return t
  }

  tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' })
  }

  /** Keys by tmux name (Enter, Escape, C-c, M-Enter, PageUp) or literal text with `literal`. */
  keys(...keys: string[]): void {
    this.tmux('send-keys', '-t', 'main', ...keys)
  }

  type(text: string): void {
    this.tmux('send-keys', '-t', 'main', '-l', text)
  }

  /** Pastes `text` as the terminal would (bracketed, when the program asked for it). */
  paste(text: string): void {
    this.tmux('set-buffer', '-b', 'p', text)
    this.tmux('paste-buffer', '-p', '-b', 'p', '-t', 'main')
  }

  /** The visible screen; with `escapes`, with its colour and style sequences. */
  screen(escapes = false): string {
    return this.tmux('capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', 'main')
  }

  /** Whether the command has ended. */
  get ended(): boolean {
    return this.tmux('display-message', '-p', '-t', 'main', '#{pane_dead}').trim() === '1'
  }

  resize(columns: number, rows: number): void {
    this.tmux('resize-window', '-t', 'main', '-x', String(columns), '-y', String(rows))
  }

  /** Polls the screen until `test` holds; fails with the last screen after `timeoutMs`. */
  async waitFor(
    test: (screen: string) => boolean,
    what: string,
    timeoutMs = 15_000,
    escapes = false,
  ): Promise<string> {
    const deadline = Date.now() + timeoutMs
    let last = ''
    for (;;) {
      last = this.screen(escapes)
      if (test(last)) return last
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen:\n${last}`)
      await sleep(50)
    }
  }

  kill(): void {
    try {
      this.tmux('kill-server')
    } catch {
      // already gone
    }
  }
}

function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`
}
