// The kernel pool's reserve process goes once the daemon has been idle for spareIdleMs, even
// when the timer that says so fires while `Date.now()` (the activity's clock) counts a little
// less: timers run on the monotonic clock, and the wall clock rounds differently or is
// stepped back. The reserve must not then stay until the next activity.
import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { KernelPool, type PoolEvent } from '../../src/kernel/pool.ts'
import { tempHome } from '../helpers/daemon.ts'
import { DIST } from './kernel-bundle.ts'

const SPARE_IDLE_MS = 400
const realNow = Date.now

describe('the kernel pool reserve', () => {
  it('goes after spareIdleMs of idleness although the wall clock lags the timer', async () => {
    const home = tempHome()
    const events: PoolEvent[] = []
    let onEvent = (_e: PoolEvent) => {}
    const pool = new KernelPool({
      entry: join(DIST, 'kernel.mjs'),
      env: { HEARTH_HOME: home },
      idleMs: 1000,
      spare: true,
      spareIdleMs: SPARE_IDLE_MS,
      capacity: 4,
      onEvent: (e) => {
        events.push(e)
        onEvent(e)
      },
    })
    const next = (event: PoolEvent['event']) =>
      new Promise<PoolEvent>((resolve) => {
        onEvent = (e) => e.event === event && resolve(e)
      })
    try {
      const ready = next('kernel_process_ready')
      pool.warm()
      await ready
      // Activity noted with the reserve warm already; then the wall clock steps back 50 ms.
      const stopped = next('kernel_process_stopped')
      pool.warm()
      Date.now = () => realNow() - 50
      const gone = await Promise.race([
        stopped,
        new Promise<null>((r) => setTimeout(r, 10 * SPARE_IDLE_MS, null)),
      ])
      assert.deepEqual(
        gone && { event: gone.event, reason: 'reason' in gone ? gone.reason : undefined },
        { event: 'kernel_process_stopped', reason: 'spare_idle' },
        `events: ${JSON.stringify(events)}`,
      )
    } finally {
      Date.now = realNow
      pool.close()
      rmSync(home, { recursive: true, force: true })
    }
  })
})
