// Kernel processes, daemon side: one per busy session, started on demand, stopped after an
// idle linger, with one warm spare so a first message does not wait for a process start.
import type { ChildProcess } from 'node:child_process'
import { v7 as uuidv7 } from 'uuid'
import { childProcess } from '../util/lazy-builtins.ts'
import type { FromKernel, ToKernel } from './protocol.ts'

export type KernelState = 'none' | 'starting' | 'ready' | 'running' | 'stopping'

export interface KernelInfo {
  instance_id: string | null
  state: KernelState
  build: string | null
}

export interface KernelListener {
  onMessage: (msg: FromKernel) => void
  /** The process ended without being asked to (crash, OOM, kill). */
  onExit: (code: number | null, signal: string | null) => void
}

export class Kernel {
  readonly instanceId = uuidv7()
  readonly proc: ChildProcess
  build: string | null = null
  state: KernelState = 'starting'
  listener: KernelListener | undefined
  readonly ready: Promise<void>
  #stopping = false

  constructor(entry: string) {
    this.proc = childProcess().fork(entry, [], {
      env: { ...process.env, HEARTH_KERNEL_INSTANCE: this.instanceId },
      execArgv: [],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    this.ready = new Promise((resolve) => {
      this.proc.on('message', (msg: FromKernel) => {
        if (msg.type === 'ready') {
          this.build = msg.build
          if (this.state === 'starting') this.state = 'ready'
          resolve()
          return
        }
        this.listener?.onMessage(msg)
      })
      this.proc.on('exit', () => resolve())
    })
    this.proc.on('exit', (code, signal) => {
      const unexpected = !this.#stopping
      this.state = 'none'
      if (unexpected) this.listener?.onExit(code, signal)
    })
    // A kernel must never keep the daemon alive on its own.
    this.proc.unref()
    this.proc.channel?.unref()
  }

  get alive(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null
  }

  send(msg: ToKernel): void {
    if (this.alive && this.proc.connected) this.proc.send(msg)
  }

  stop(): void {
    if (this.#stopping) return
    this.#stopping = true
    this.state = 'stopping'
    this.send({ type: 'shutdown' })
    const kill = setTimeout(() => this.proc.kill('SIGKILL'), 2000)
    kill.unref()
    this.proc.once('exit', () => clearTimeout(kill))
  }
}

export interface PoolOptions {
  entry: string
  /** How long an idle session keeps its kernel. */
  idleMs: number
  /** Keep one started kernel in reserve. */
  spare: boolean
}

export class KernelPool {
  readonly #opts: PoolOptions
  readonly #bySession = new Map<string, Kernel>()
  readonly #idleTimers = new Map<string, NodeJS.Timeout>()
  #spare: Kernel | undefined
  #closed = false

  constructor(opts: PoolOptions) {
    this.#opts = opts
  }

  /** Starts the spare (call once the daemon listens). */
  warm(): void {
    if (this.#closed || !this.#opts.spare || (this.#spare?.alive ?? false)) return
    this.#spare = new Kernel(this.#opts.entry)
  }

  /** The session's kernel, started (or taken from the spare) if it has none. */
  acquire(sessionId: string): Kernel {
    clearTimeout(this.#idleTimers.get(sessionId))
    this.#idleTimers.delete(sessionId)
    let k = this.#bySession.get(sessionId)
    if (k?.alive && k.state !== 'stopping') return k
    k = this.#spare?.alive ? this.#spare : new Kernel(this.#opts.entry)
    this.#spare = undefined
    this.#bySession.set(sessionId, k)
    k.proc.once('exit', () => {
      if (this.#bySession.get(sessionId) === k) this.#bySession.delete(sessionId)
    })
    setImmediate(() => this.warm())
    return k
  }

  /** The session went idle: its kernel stops after the linger unless work comes back. */
  release(sessionId: string): void {
    const k = this.#bySession.get(sessionId)
    if (!k) return
    k.listener = undefined
    if (k.state === 'running') k.state = 'ready'
    clearTimeout(this.#idleTimers.get(sessionId))
    const timer = setTimeout(() => {
      this.#idleTimers.delete(sessionId)
      if (this.#bySession.get(sessionId) === k) {
        this.#bySession.delete(sessionId)
        k.stop()
      }
    }, this.#opts.idleMs)
    timer.unref()
    this.#idleTimers.set(sessionId, timer)
  }

  info(sessionId: string): KernelInfo {
    const k = this.#bySession.get(sessionId)
    if (!k?.alive) return { instance_id: null, state: 'none', build: null }
    return { instance_id: k.instanceId, state: k.state, build: k.build }
  }

  close(): void {
    this.#closed = true
    for (const t of this.#idleTimers.values()) clearTimeout(t)
    for (const k of this.#bySession.values()) k.stop()
    this.#spare?.stop()
    this.#bySession.clear()
  }
}
