// HTTP round trip: GET /server on one keep-alive connection for 5 s (after a 1 s warm-up),
// through the full stack (Host and token checks, routing, validation, JSON). Latencies are
// taken from autocannon's per-response timings (sub-millisecond; its own histogram rounds to
// whole milliseconds).
import autocannon, { type Result } from 'autocannon'
import { ms, percentile, type Row, type Section, spawnDaemon } from '../lib.ts'

const DURATION_S = 5
const WARMUP_S = 1
const P99_TARGET_MS = 2

function load(
  url: string,
  headers: Record<string, string>,
  duration: number,
  times: number[],
): Promise<Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon({ url, connections: 1, duration, headers }, (err, result) =>
      err ? reject(err) : resolve(result),
    )
    instance.on('response', (_client: unknown, _status: number, _bytes: number, time: number) => {
      times.push(time)
    })
  })
}

export const http: Section = {
  name: 'http',
  description: `GET /server, 1 connection, ${DURATION_S} s`,
  async run(): Promise<Row[]> {
    const d = await spawnDaemon()
    try {
      const url = `${d.url}/server`
      const headers = { authorization: `Bearer ${d.token}`, host: new URL(d.url).host }
      await load(url, headers, WARMUP_S, [])
      const times: number[] = []
      const r = await load(url, headers, DURATION_S, times)
      if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0) {
        throw new Error(
          `GET /server failed during the run: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`,
        )
      }
      const p99 = percentile(times, 99)
      return [
        { figure: 'GET /server p50', measured: ms(percentile(times, 50), 3) },
        {
          figure: 'GET /server p99',
          measured: ms(p99, 3),
          target: `≤ ${P99_TARGET_MS} ms`,
          ok: p99 <= P99_TARGET_MS,
        },
        { figure: 'GET /server max', measured: ms(Math.max(...times), 2) },
        {
          figure: 'GET /server requests/s (1 connection)',
          measured: `${Math.round(times.length / DURATION_S)}/s`,
        },
      ]
    } finally {
      await d.stop()
    }
  },
}
