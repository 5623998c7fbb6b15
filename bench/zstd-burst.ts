// Memory of a burst of zstd bodies that decode to the inputs route's limit: RSS of the
// daemon before, its peak (VmHWM) and after, as `node bench/zstd-burst.ts [count]` prints.
import { readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import zlib from 'node:zlib'
import { v7 as uuidv7 } from 'uuid'
import { INPUT_BODY_LIMIT } from '../src/schemas/common.ts'
import { startDaemon, tempHome } from '../test/helpers/daemon.ts'

function memMiB(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0)
  return { rss: Math.round(kb('VmRSS') / 1024), hwm: Math.round(kb('VmHWM') / 1024) }
}

const count = Number(process.argv[2] ?? 6)
const d = await startDaemon()
const pid = d.proc.pid as number
const ws = tempHome('hearth-ws-')
const sid = uuidv7()
const created = await d.request({
  method: 'PUT',
  path: `/sessions/${sid}`,
  headers: { 'content-type': 'application/json', 'if-none-match': '*' },
  body: JSON.stringify({ kind: 'new', workspace: ws }),
})
if (created.status !== 201) throw new Error(created.text())
await sleep(1000)
const before = memMiB(pid)
const raw = process.argv[3] === 'raw'
const plain = Buffer.alloc(INPUT_BODY_LIMIT - 1024, 0x20)
const body = raw ? plain : zlib.zstdCompressSync(plain)
const statuses = await Promise.all(
  Array.from({ length: count }, () =>
    d.request({
      method: 'PUT',
      path: `/sessions/${sid}/inputs/${uuidv7()}`,
      headers: { 'content-type': 'application/json', ...(raw ? {} : { 'content-encoding': 'zstd' }) },
      body,
    }),
  ),
)
const peak = memMiB(pid)
await sleep(2000)
const after2 = memMiB(pid)
await sleep(8000)
const after10 = memMiB(pid)
console.log(
  JSON.stringify({
    count,
    coded_bytes: body.length,
    statuses: statuses.map((r) => `${r.status} ${r.status >= 400 ? r.json().code : ''}`.trim()),
    rss_before_mib: before.rss,
    rss_peak_mib: peak.hwm,
    rss_after_2s_mib: after2.rss,
    rss_after_10s_mib: after10.rss,
  }),
)
await d.stop()
