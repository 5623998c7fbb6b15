// kill -9 during 1,000 settings writes: both files always parse, creds.json stays 0600,
// and after the restart every writer's profile and key come from one and the same write,
// never older than the last write that was acknowledged.
import assert from 'node:assert/strict'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { startDaemon, tempHome } from '../helpers/daemon.ts'
import { change, fileJson, modeOf, patchFresh } from './helpers.ts'

const WRITERS = 4
const TOTAL = 1_000
const KILL_AFTER = 120

describe('durability of settings', () => {
  it('survives kill -9 during 1,000 writes with no half-commit', async () => {
    const home = tempHome()
    const d = await startDaemon({ home })
    await change(d, 'providers', {
      profiles: Object.fromEntries(
        Array.from({ length: WRITERS }, (_, w) => [
          `w${w}`,
          { endpoint: 'https://x.example/v1', model: 'm-0' },
        ]),
      ),
    })
    const acknowledged = Array.from({ length: WRITERS }, () => 0)
    const sent = Array.from({ length: WRITERS }, () => 0)
    let answered = 0
    let killed = false
    let next = 0
    const writer = async (w: number) => {
      for (let n = 1; next++ < TOTAL && !killed; n++) {
        sent[w] = n
        const body = { profiles: { [`w${w}`]: { model: `m-${n}`, api_key: `key-${w}-${n}` } } }
        const r = await patchFresh(d, 'providers', body).catch(() => undefined)
        if (r?.status !== 200) return
        acknowledged[w] = n
        if (++answered === KILL_AFTER) {
          killed = true
          d.proc.kill('SIGKILL')
        }
      }
    }
    await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)))
    await d.exited
    assert.ok(killed, 'the daemon was killed mid-run')
    // Whatever the moment, both files parse and creds.json is private.
    JSON.parse(readFileSync(join(home, 'config.json'), 'utf8'))
    JSON.parse(readFileSync(join(home, 'creds.json'), 'utf8'))
    assert.equal(statSync(join(home, 'creds.json')).mode & 0o777, 0o600)

    const again = await startDaemon({ home })
    try {
      const config = fileJson(home, 'config.json')
      const creds = fileJson(home, 'creds.json')
      assert.equal(modeOf(home, 'creds.json'), 0o600)
      for (let w = 0; w < WRITERS; w++) {
        const model = Number(String(config.providers.profiles[`w${w}`].model).slice(2))
        const key = creds.providers?.[`w${w}`]?.apiKey ?? 'key-0-0'
        const keyN = Number(String(key).split('-')[2])
        assert.equal(keyN, model, `writer ${w}: profile and key from one write`)
        assert.ok(model >= acknowledged[w], `writer ${w}: ${model} ≥ acknowledged ${acknowledged[w]}`)
        assert.ok(model <= sent[w], `writer ${w}: ${model} ≤ sent ${sent[w]}`)
      }
      assert.equal((await again.request({ path: '/settings' })).status, 200)
    } finally {
      await again.stop()
    }
  })
})
