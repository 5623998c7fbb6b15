// The daemon's log, opened after it is ready. Loading pino brings its stream and worker
// machinery (sonic-boom, thread-stream, node:assert, node:worker_threads): milliseconds a
// start should not wait for. Until it is loaded, lines queue here with the time they were
// logged, and are written in order once it is; `ready()` lets an exit wait for that.
import type { Logger } from 'pino'

type Level = 'debug' | 'info' | 'warn' | 'error' | 'fatal'
type Args = [obj: object, msg?: string] | [msg: string]

/** The part of pino's Logger the daemon uses. */
export interface DaemonLog {
  /** Written only when HEARTH_LOG_LEVEL asks for it (`debug`). */
  debug?(...args: Args): void
  info(...args: Args): void
  warn(...args: Args): void
  error(...args: Args): void
  fatal(...args: Args): void
}

export class DeferredLog implements DaemonLog {
  #real: Logger | undefined
  #queue: { level: Level; at: string; args: Args }[] = []
  #loading: Promise<void> | undefined

  /** Opens HOME/logs/hearth.log and writes what was queued. Safe to call more than once. */
  open(home: string): Promise<void> {
    this.#loading ??= import('./log.ts').then(({ openLog }) => {
      const real = openLog(home)
      for (const { level, at, args } of this.#queue) {
        // Queued lines keep the moment they were logged, beside pino's own time.
        const [first, msg] = args
        if (typeof first === 'string') real[level]({ logged_at: at }, first)
        else real[level]({ ...first, logged_at: at }, msg)
      }
      this.#queue = []
      this.#real = real
    })
    return this.#loading
  }

  /** Resolves once the log is open (immediately when it was never asked to open). */
  ready(): Promise<void> {
    return this.#loading ?? Promise.resolve()
  }

  #write(level: Level, args: Args): void {
    if (this.#real) (this.#real[level] as (...a: Args) => void)(...args)
    else this.#queue.push({ level, at: new Date().toISOString(), args })
  }

  debug(...args: Args): void {
    this.#write('debug', args)
  }
  info(...args: Args): void {
    this.#write('info', args)
  }
  warn(...args: Args): void {
    this.#write('warn', args)
  }
  error(...args: Args): void {
    this.#write('error', args)
  }
  fatal(...args: Args): void {
    this.#write('fatal', args)
  }
}
