// A warm sandbox: one bubblewrap kept running for a session, whose only process is the
// spawner (spawner.ts); each of the session's commands is forked by it inside the existing
// namespaces rather than in a bwrap of its own, which spares the sandbox's set-up on every
// call. Its output comes back through two FIFOs of the session's private directory (bound
// into the sandbox read-only), read here without blocking a thread (a socket on the read
// end). The sandbox's process group is reported like a command's (watchProcessGroups), so a
// kernel killed outright takes it along, and `--die-with-parent` ends it with the kernel.
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { closeSync, constants as fsConstants, openSync, rmSync, writeFileSync } from 'node:fs'
import { Socket } from 'node:net'
import { constants } from 'node:os'
import { join } from 'node:path'
import {
  addGroup,
  type CommandEnd,
  DRAIN_MS,
  type Launched,
  type OutputStream,
  removeGroup,
  STOP_GRACE_MS,
} from './process.ts'
import { SPAWNER_SCRIPT } from './spawner.ts'

/** A command longer than this goes to the spawner in a file (read by blocks, not bytes). */
const INLINE_COMMAND_BYTES = 4096

/** FIFO pairs made ahead, so that a command rarely waits for `mkfifo`. */
const FIFOS_AHEAD = 4

export interface WarmOptions {
  /** The bwrap argv up to `--` (its mounts decide which commands may share it). */
  bwrap: readonly string[]
  /** The spawner's environment: the commands' (without BASH_ENV). */
  env: Record<string, string>
  /** The private directory bound into the sandbox: the FIFOs go there. */
  dir: string
  /** Its arguments: the snapshot's file, SHLVL, whether OLDPWD is set and its value. */
  args: readonly string[]
  /** Called when its last command ended. */
  onIdle: () => void
}

interface Pending {
  id: string
  /** Stopped before its request went to the spawner: it never starts. */
  stopped: boolean
  sent: boolean
  /** Its pid in the sandbox (its process group), once it started. */
  pid: string | undefined
  /** The file holding a long command, removed as it ends. */
  file: string
  /** The last signal asked for before its pid was known. */
  queued: 'TERM' | 'KILL' | undefined
  fifos: [string, string]
  fds: [number, number]
  onOutput?: (stream: OutputStream, chunk: Buffer) => void
  started: (sockets: Socket[]) => void
  exited: (status: number, signaled: boolean) => void
  failed: (error: Error) => void
}

export class WarmSandbox {
  readonly #opts: WarmOptions
  readonly #child: ChildProcess
  readonly #pending = new Map<string, Pending>()
  readonly #fifos: [string, string][] = []
  #fifoCount = 0
  #making: Promise<void> | undefined
  #nextId = 0
  #lineRest = ''
  /** How each command's job ended, by its pid in the sandbox (from `jobs -l`). */
  readonly #jobStatus = new Map<string, string>()
  #ended = false

  constructor(opts: WarmOptions) {
    this.#opts = opts
    const argv = [
      ...opts.bwrap,
      '--',
      'bash',
      '--noprofile',
      '--norc',
      '-c',
      SPAWNER_SCRIPT,
      'spawner',
      ...opts.args,
    ]
    this.#child = spawn(argv[0], argv.slice(1), {
      env: opts.env,
      detached: true,
      stdio: ['pipe', 'pipe', 'ignore'],
    })
    const pid = this.#child.pid
    if (pid !== undefined) addGroup(pid)
    this.#child.stdout?.setEncoding('utf8')
    this.#child.stdout?.on('data', (text: string) => this.#read(text))
    this.#child.stdin?.on('error', () => {})
    this.#child.on('error', () => this.#gone())
    this.#child.on('exit', () => this.#gone())
    void this.#makeFifos()
  }

  /** Whether it can take commands. */
  get alive(): boolean {
    return !this.#ended
  }

  /** Commands running in it now. */
  get running(): number {
    return this.#pending.size
  }

  /** Ends the sandbox and every process in it. */
  end(): void {
    if (this.#ended) return
    this.#child.stdin?.end()
    if (this.#child.pid !== undefined)
      try {
        process.kill(-this.#child.pid, 'SIGKILL')
      } catch {}
    this.#gone()
  }

  /** Starts `command` in `cwd` inside the sandbox. */
  launch(
    command: string,
    cwd: string,
    opts: { graceMs?: number; onOutput?: (stream: OutputStream, chunk: Buffer) => void },
  ): Launched {
    const id = String(++this.#nextId)
    const grace = opts.graceMs ?? STOP_GRACE_MS
    let exited = false
    let settled = false
    let end: CommandEnd = { exitCode: null, signal: null, error: null }
    let sockets: Socket[] = []
    let open = 0
    let killTimer: NodeJS.Timeout | undefined
    let drainTimer: NodeJS.Timeout | undefined
    let reusable = true
    let finish!: (e: CommandEnd) => void
    const done = new Promise<CommandEnd>((resolve) => {
      finish = resolve
    })
    const pending: Pending = {
      id,
      stopped: false,
      sent: false,
      pid: undefined,
      file: '',
      queued: undefined,
      fifos: ['', ''],
      fds: [-1, -1],
      onOutput: opts.onOutput,
      started: (s) => {
        sockets = s
        open = s.length
        for (const socket of s) socket.on('close', () => --open === 0 && exited && settle())
      },
      exited: (status, signaled) => {
        exited = true
        const signal = signaled ? signalName(status - 128) : null
        end = { exitCode: status, signal, error: null }
        // What it left behind is killed by the spawner; the group is told too, as outside.
        terminate()
        if (open === 0) settle()
      },
      failed: (error) => {
        exited = true
        reusable = false
        end = { ...end, error: end.exitCode === null ? error : null }
        if (pending.stopped && !pending.sent) end = { exitCode: null, signal: null, error: null }
        for (const s of sockets) s.destroy()
        settle()
      },
    }
    const settle = () => {
      if (settled) return
      settled = true
      clearTimeout(killTimer)
      clearTimeout(drainTimer)
      this.#pending.delete(id)
      if (pending.file) rmSync(pending.file, { force: true })
      if (sockets.length === 0) for (const fd of pending.fds) if (fd >= 0) closeFd(fd)
      if (pending.fifos[0]) {
        if (reusable && !this.#ended) this.#fifos.push(pending.fifos)
        else for (const f of pending.fifos) rmSync(f, { force: true })
      }
      finish(end)
      if (this.#pending.size === 0) this.#opts.onIdle()
    }
    const terminate = () => {
      if (settled || killTimer) return
      pending.stopped = true
      this.#signal(pending, 'TERM')
      killTimer = setTimeout(() => {
        this.#signal(pending, 'KILL')
        drainTimer = setTimeout(() => {
          reusable = false
          for (const s of sockets) s.destroy()
          settle()
        }, DRAIN_MS)
      }, grace)
      killTimer.unref()
    }
    this.#pending.set(id, pending)
    void this.#start(pending, command, cwd).catch((err: Error) => pending.failed(err))
    return {
      get exited() {
        return exited
      },
      done,
      terminate,
    }
  }

  async #start(p: Pending, command: string, cwd: string): Promise<void> {
    if (this.#ended) throw new Error('the sandbox ended')
    if (this.#fifos.length === 0) await this.#makeFifos()
    const fifos = this.#fifos.shift()
    if (!fifos || this.#ended) throw new Error('the sandbox ended')
    if (p.stopped) {
      this.#fifos.push(fifos)
      throw new Error('stopped before it started')
    }
    if (this.#fifos.length < FIFOS_AHEAD / 2) void this.#makeFifos()
    p.fifos = fifos
    // Read ends first, without blocking: the command's open for writing then never waits.
    p.fds = [openFifo(fifos[0]), openFifo(fifos[1])]
    let file = ''
    if (Buffer.byteLength(command) > INLINE_COMMAND_BYTES) {
      file = join(this.#opts.dir, `command-${p.id}`)
      writeFileSync(file, command, { mode: 0o600 })
      p.file = file
    }
    const fields = ['R', p.id, cwd, fifos[0], fifos[1], file ? '' : command, file]
    this.#child.stdin?.write(`${fields.join('\0')}\0`)
    p.sent = true
  }

  /** Signals the command's process group (the spawner sends it: pids in the sandbox are its own). */
  #signal(p: Pending, signal: 'TERM' | 'KILL'): void {
    if (p.pid === undefined) p.queued = signal
    else if (!this.#ended) this.#child.stdin?.write(`K\0${p.pid}\0${signal}\0`)
  }

  /** The spawner's answers, a line each. */
  #read(text: string): void {
    const lines = (this.#lineRest + text).split('\n')
    this.#lineRest = lines.pop() ?? ''
    for (const line of lines) {
      const job = /^\[\d+\][+-]? +(\d+) +(.*)$/.exec(line)
      if (job) {
        this.#jobStatus.set(job[1], job[2])
        continue
      }
      const [kind, id, a, b] = line.split(' ')
      const p = this.#pending.get(id)
      if (!p) continue
      if (kind === 'S') {
        p.pid = a
        this.#attach(p)
        if (p.queued) this.#signal(p, p.queued)
      } else if (kind === 'E') {
        const status = Number(b)
        const how = this.#jobStatus.get(a) ?? ''
        this.#jobStatus.delete(a)
        p.exited(status, status > 128 && !/^(Done|Exit )/.test(how) && how !== '')
      }
    }
  }

  /** The command has its outputs open: read them. */
  #attach(p: Pending): void {
    const sockets = (['stdout', 'stderr'] as const).map((stream, i) => {
      const socket = new Socket({ fd: p.fds[i], readable: true, writable: false })
      socket.on('data', (chunk: Buffer) => p.onOutput?.(stream, chunk))
      socket.on('error', () => socket.destroy())
      return socket
    })
    p.started(sockets)
  }

  async #makeFifos(): Promise<void> {
    this.#making ??= new Promise<void>((resolve) => {
      const names: string[] = []
      for (let i = 0; i < FIFOS_AHEAD * 2; i++) names.push(join(this.#opts.dir, `fifo-${++this.#fifoCount}`))
      execFile('mkfifo', ['-m', '600', ...names], (err) => {
        this.#making = undefined
        if (!err) for (let i = 0; i < names.length; i += 2) this.#fifos.push([names[i], names[i + 1]])
        resolve()
      })
    })
    return this.#making
  }

  /** The spawner is gone: every command it ran fails, and nothing more starts here. */
  #gone(): void {
    if (this.#ended) return
    this.#ended = true
    if (this.#child.pid !== undefined) removeGroup(this.#child.pid)
    for (const p of [...this.#pending.values()]) p.failed(new Error('the sandbox ended'))
    for (const fifos of this.#fifos.splice(0)) for (const f of fifos) rmSync(f, { force: true })
  }
}

function openFifo(path: string): number {
  return openSync(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK)
}

function closeFd(fd: number): void {
  try {
    closeSync(fd)
  } catch {}
}

function signalName(n: number): NodeJS.Signals | null {
  for (const [name, value] of Object.entries(constants.signals))
    if (value === n) return name as NodeJS.Signals
  return null
}
