// The part of autocannon's API the benches use (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events'

  interface Options {
    url: string
    connections?: number
    duration?: number
    headers?: Record<string, string>
    method?: string
  }

  interface Histogram {
    average: number
    mean: number
    stddev: number
    min: number
    max: number
    p50: number
    p99: number
    total: number
  }

  interface Result {
    requests: Histogram
    latency: Histogram
    throughput: Histogram
    errors: number
    timeouts: number
    non2xx: number
    duration: number
  }

  /** Emits 'response' (client, statusCode, bytes, responseTimeMs) for every response. */
  type Instance = EventEmitter

  function autocannon(opts: Options, cb: (err: Error | null, result: Result) => void): Instance

  export default autocannon
  export type { Instance, Options, Result }
}
