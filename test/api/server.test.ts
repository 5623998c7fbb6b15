import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startDaemon, type TestDaemon } from '../helpers/daemon.ts'

describe('GET /server and POST /server/shutdown', () => {
  let d: TestDaemon
  before(async () => {
    d = await startDaemon()
  })
  after(async () => {
    await d.stop()
  })

  it('include=quota_history reads the quota read path: an empty page while nothing is recorded, the filter rules as problems', async () => {
    const trail = 'quota_provider=codex&quota_account=a%40example.test&quota_limit=primary'
    const ok = await d.request({
      path: `/server?include=quota_history&${trail}&quota_since=2026-01-01T00:00:00.000Z&limit=200`,
    })
    assert.equal(ok.status, 200, ok.text())
    assert.equal(ok.json().quota, null)
    assert.deepEqual(ok.json().quota_history, { items: [], next: null })
    assert.equal('quota_history' in (await d.request({ path: '/server' })).json(), false)
    const refused = async (query: string, code: string) => {
      const r = await d.request({ path: `/server?${query}` })
      assert.equal(r.status, 400, query)
      assert.equal(r.json().code, code, query)
    }
    await refused('include=quota_history&quota_provider=codex&quota_account=a', 'invalid_parameter')
    await refused('include=quota_history&quota_since=2026-01-01T00:00:00.000Z', 'invalid_parameter')
    await refused('include=quota_history&quota_since=yesterday', 'invalid_parameter')
    await refused('include=quota_history&limit=201', 'invalid_parameter')
    await refused(`${trail}`, 'invalid_parameter')
    await refused('include=quota_history&next=bm90LW91cnM', 'invalid_continuation')
    await refused('include=everything', 'invalid_parameter')
  })

  it('describes the daemon', async () => {
    const res = await d.request({ path: '/server' })
    assert.equal(res.status, 200)
    const body = res.json()
    const runtime = JSON.parse((await import('node:fs')).readFileSync(`${d.home}/daemon.json`, 'utf8'))
    assert.equal(body.instance_id, runtime.instance_id)
    assert.equal(body.protocol, 3)
    assert.equal(body.state, 'ready')
    assert.deepEqual(body.capabilities, {
      zstd_requests: 1,
      storage_report: 1,
      session_replay: 1,
      snapshots: 1,
      collection_invalidation: 1,
      durable_inputs: 1,
      provider_auth: 1,
      tool_progress: 1,
      context: 1,
      catalog: 1,
      workspace_browsing: 1,
      host_probes: 1,
    })
    assert.match(body.build, /^\d+\.\d+\.\d+\+g[0-9a-z]+$/)
    assert.equal(body.digest, null)
    assert.deepEqual(body.extensions, [
      { name: 'models', version: 1 },
      { name: 'openai-compatible', version: 1 },
      { name: 'chatgpt', version: 1 },
      { name: 'claude', version: 1 },
      { name: 'antigravity', version: 1 },
      { name: 'bedrock', version: 1 },
      { name: 'vertex', version: 1 },
      { name: 'copilot', version: 1 },
      { name: 'work', version: 1 },
      { name: 'paperclips', version: 1 },
    ])
    assert.equal(body.quota, null)
    assert.deepEqual(body.notices, [])
    // Where tool commands run: probed by the first kernel process, null until then.
    assert.deepEqual(Object.keys(body.sandbox), ['available', 'kind', 'reason'])
  })

  it('refuses to shut down another instance', async () => {
    const res = await d.request({
      method: 'POST',
      path: '/server/shutdown',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ instance_id: 'not-this-one' }),
    })
    assert.equal(res.status, 409)
    assert.equal(res.json().code, 'instance_mismatch')
    assert.equal((await d.request({ path: '/server' })).status, 200)
  })

  it('drains and exits 0 on a matching shutdown', async () => {
    const id = (await d.request({ path: '/server' })).json().instance_id
    const res = await d.request({
      method: 'POST',
      path: '/server/shutdown',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ instance_id: id }),
    })
    assert.equal(res.status, 202)
    assert.deepEqual(res.json(), { instance_id: id, state: 'draining' })
    assert.equal(await d.exited, 0)
    const { existsSync } = await import('node:fs')
    assert.equal(existsSync(`${d.home}/daemon.json`), false)
  })
})
