// What the turn section's figures stand beside, measured in the same run: the floor of a
// turn without hearth (two Node servers and one fdatasync), commands spawned straight from
// this process as an agent without a sandbox spawns them, and bare idle Node processes.
import { spawn } from 'node:child_process'
import { appendFileSync, chmodSync, closeSync, copyFileSync, fdatasyncSync, openSync, rmSync } from 'node:fs'
import { Agent, createServer, request as httpRequest, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { delimiter, dirname, join } from 'node:path'
import { commandEnv } from '../src/tools/exec/env.ts'
import { wrap } from '../src/tools/exec/sandbox.ts'
import { hiddenPaths } from '../src/tools/hidden-paths.ts'
import { heldConnection, pssOf, settledTreePss, tempHome, timeSpawn } from './lib.ts'

/** Where a turn's time goes, from the client's side (bench/turn-driver.ts measures hearth's). */
export interface TurnTimes {
  /** From the input's first byte written to the upstream receiving its request. */
  toUpstream: number
  /** From the input's first byte written to its 202 received. */
  accepted: number
  /** From the input's first byte written to the first delta received on the held stream. */
  firstToken: number
  /** From the upstream's last byte written to the end of the turn received on the held stream. */
  turnEnd: number
}

/**
 * The floor of a turn without hearth: server A appends a small file and fdatasyncs it,
 * answers 202, forwards the request to server B over a kept-alive connection and relays B's
 * answer onto a stream the client holds. One sample per call of `sample()`.
 */
export async function relayFloor(dir: string) {
  const file = join(dir, 'floor.log')
  const fd = openSync(file, 'a')
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  let arrivedAtB = 0
  let bWrote: Promise<number> = Promise.resolve(0)
  let gate: Promise<unknown> = Promise.resolve()
  const b = createServer((req, res) => {
    arrivedAtB = performance.now()
    req.resume()
    bWrote = new Promise((wrote) => {
      req.on('end', async () => {
        res.write('delta\n')
        await gate
        res.end('end\n', () => wrote(performance.now()))
      })
    })
  })
  let held: ServerResponse | undefined
  const fsyncs: number[] = []
  const a = createServer((req, res) => {
    if (req.method === 'GET') {
      held = res
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.flushHeaders()
      return
    }
    req.resume()
    req.on('end', () => {
      const t = performance.now()
      appendFileSync(fd, '{"kind":"message","text":"hi"}\n')
      fdatasyncSync(fd)
      fsyncs.push(performance.now() - t)
      res.writeHead(202, { 'content-length': '0' }).end()
      const out = httpRequest(
        { host: '127.0.0.1', port: portOf(b), method: 'POST', path: '/', agent },
        (up) => {
          up.on('data', (c) => held?.write(c))
        },
      )
      out.end('{}')
    })
  })
  for (const s of [a, b]) await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  const client = heldConnection(portOf(a))
  const chunks: { at: number; text: string }[] = []
  let onChunk = () => {}
  await new Promise<void>((resolve) => {
    httpRequest({ host: '127.0.0.1', port: portOf(a), path: '/' }, (res) => {
      res.setEncoding('utf8')
      res.on('data', (text: string) => {
        chunks.push({ at: performance.now(), text })
        onChunk()
      })
      resolve()
    }).end()
  })
  const chunk = (text: string) =>
    new Promise<number>((resolve) => {
      onChunk = () => {
        const c = chunks.find((x) => x.text.includes(text))
        if (c) resolve(c.at)
      }
      onChunk()
    })
  return {
    async sample(): Promise<TurnTimes> {
      chunks.length = 0
      const first = chunk('delta')
      gate = first
      const r = await client.send('PUT', '/inputs', {}, '{"kind":"message","text":"hi"}')
      const firstAt = await first
      const endAt = await chunk('end')
      return {
        toUpstream: arrivedAtB - r.sentAt,
        accepted: r.answeredAt - r.sentAt,
        firstToken: firstAt - r.sentAt,
        turnEnd: endAt - (await bWrote),
      }
    },
    fsyncs,
    close() {
      client.close()
      held?.end()
      agent.destroy()
      a.close()
      b.close()
      closeSync(fd)
    },
  }
}

const portOf = (s: ReturnType<typeof createServer>) => (s.address() as AddressInfo).port

/**
 * The argvs a shell call stands beside, spawned from this process with the environment a
 * command gets (HOME `emptyHome`): `bash -c`, `bash -lc`, and the sandbox's own argv for
 * `bash -lc` in `workspace` with the session's default policy, hiding `home`.
 */
export function commandBaselines(o: { command: string; workspace: string; home: string; emptyHome: string }) {
  const env = commandEnv({ ...process.env, HOME: o.emptyHome })
  const policy = { isolate: true, network: false, hidden: hiddenPaths({}, o.emptyHome), gitWritable: false }
  const argvs = {
    bashC: ['bash', '-c', o.command],
    bashLc: ['bash', '-lc', o.command],
    sandboxed: wrap(['bash', '-lc', o.command], {
      cwd: o.workspace,
      policy,
      writableRoots: [o.workspace],
      home: o.home,
    }),
  }
  const samples = { bashC: [] as number[], bashLc: [] as number[], sandboxed: [] as number[] }
  return {
    samples,
    /** One spawn of each, in turn. */
    async sample() {
      for (const k of ['bashC', 'bashLc', 'sandboxed'] as const)
        samples[k].push(await timeSpawn(argvs[k], { cwd: o.workspace, env }))
    },
    /** `n` spawns of the sandbox's argv one after the other: their total time, not kept in `samples`. */
    async sandboxedTimes(n: number) {
      let total = 0
      for (let i = 0; i < n; i++) total += await timeSpawn(argvs.sandboxed, { cwd: o.workspace, env })
      return total
    },
  }
}

/** PSS of bare idle Node processes (`node` at `nodePath`), `count` at once, summed once settled. */
export async function bareNodePss(nodePath: string, count: number): Promise<number> {
  const procs = Array.from({ length: count }, () =>
    spawn(nodePath, ['-e', 'setInterval(()=>{},1e3)'], { stdio: 'ignore' }),
  )
  try {
    await Promise.all(procs.map((p) => settledTreePss(p.pid as number)))
    return procs.reduce((sum, p) => sum + pssOf(p.pid as number), 0)
  } finally {
    for (const p of procs) p.kill('SIGKILL')
  }
}

/**
 * A private copy of this Node binary, and a PATH that finds it first. PSS splits a shared
 * page among every process mapping it, and other Node processes on the machine (this bench,
 * other daemons, anything else) run the same file: with it, a tree's PSS moves with what
 * else runs. With the copy, a tree shares its binary only within itself, as when it is the
 * only Node program running.
 */
export function privateNode() {
  const dir = tempHome('hearth-bench-node-')
  const node = join(dir, 'node')
  copyFileSync(process.execPath, node)
  chmodSync(node, 0o755)
  const PATH = [dir, dirname(process.execPath), process.env.PATH ?? ''].join(delimiter)
  return { node, PATH, remove: () => rmSync(dir, { recursive: true, force: true }) }
}
