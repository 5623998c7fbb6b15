// 1000 creates on one connection; client latency per request; then ask daemon for its own times (SIGUSR2)
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { v7 } from 'uuid'
const bin = process.argv[2]
const home = mkdtempSync(join(tmpdir(), 'cr-'))
import { openSync } from 'node:fs'
const out = openSync('/tmp/exp/daemon-stdout.txt', 'w')
const p = spawn(bin, ['daemon', '--home', home, '--port', '0'], { stdio: ['ignore', out, 'ignore'], env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` } })
while (!existsSync(join(home, 'daemon.json'))) await new Promise((r) => setTimeout(r, 5))
const { url } = JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8')); const token = readFileSync(join(home, 'token'), 'utf8').trim()
const u = new URL(url); const agent = new Agent({ keepAlive: true, maxSockets: 1 })
const send = (body: string, id: string) => new Promise<number>((res, rej) => { const r = request({ agent, host: '127.0.0.1', port: u.port, method: 'PUT', path: `/sessions/${id}`, headers: { host: u.host, authorization: `Bearer ${token}`, 'content-type': 'application/json', 'if-none-match': '*' } }, (s) => { s.resume(); s.on('end', () => res(s.statusCode!)) }); r.on('error', rej); r.end(body) })
for (let i = 0; i < 50; i++) await send(JSON.stringify({ kind: 'new', workspace: home, name: `w${i}` }), v7())
const lat: number[] = []
for (let i = 0; i < 1000; i++) { const t = performance.now(); const st = await send(JSON.stringify({ kind: 'new', workspace: home, name: `s${i}` }), v7()); lat.push(performance.now() - t); if (st !== 201) throw new Error(String(st)) }
p.kill('SIGUSR2'); await new Promise((r) => setTimeout(r, 300))
const d = JSON.parse(readFileSync('/tmp/exp/daemon-times.json', 'utf8')).slice(-1000).map(([a, b]: number[]) => b - a)
const q = (a: number[], x: number) => [...a].sort((m, n) => m - n)[Math.floor(x * (a.length - 1))].toFixed(2)
console.log('client p50', q(lat, 0.5), 'p99', q(lat, 0.99), 'max', Math.max(...lat).toFixed(1), '| daemon p50', q(d, 0.5), 'p99', q(d, 0.99), 'max', Math.max(...d).toFixed(1))
// slow ones: client vs daemon
const slow = lat.map((v, i) => [i, v, d[i]]).sort((a, b) => b[1] - a[1]).slice(0, 12)
console.log(slow.map(([i, c, dd]) => `#${i} client ${c.toFixed(1)} daemon ${dd.toFixed(1)}`).join('\n'))
const all = JSON.parse(readFileSync('/tmp/exp/daemon-times.json', 'utf8')).slice(-1000)
console.log('daemon > 2ms:', all.map((r: number[], i: number) => [i, r[0], r[1] - r[0]]).filter((r: number[]) => r[2] > 2).map((r: number[]) => `#${r[0]}@${r[1].toFixed(0)}:${r[2].toFixed(1)}`).join(' '))
p.kill('SIGTERM')
