// No secret ever appears in a response body, a header, an error detail or the log: save
// known secrets through every path, provoke errors around them, then grep everything.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { type RawResponse, startDaemon } from '../helpers/daemon.ts'
import { patchGroup, readGroup } from './helpers.ts'

const SECRETS = ['sk-LEAKCHECK-key', 'tok-LEAKCHECK-bearer', 'hdr-LEAKCHECK-header', 'env-LEAKCHECK-var']

describe('secrets stay secret', () => {
  it('never appear in responses, headers, error details or the log', async () => {
    const d = await startDaemon()
    const seen: RawResponse[] = []
    const keep = (r: RawResponse) => {
      seen.push(r)
      return r
    }
    try {
      const p = await readGroup(d, 'providers')
      keep(
        await patchGroup(
          d,
          'providers',
          { profiles: { p: { endpoint: 'https://x.example/v1', model: 'm', api_key: SECRETS[0] } } },
          p.etag,
        ),
      )
      const m = await readGroup(d, 'mcp')
      keep(
        await patchGroup(
          d,
          'mcp',
          {
            servers: {
              remote: {
                url: 'https://mcp.example/mcp',
                bearerToken: SECRETS[1],
                headers: { 'X-K': SECRETS[2] },
              },
              local: { command: 'srv', env: { TOKEN: SECRETS[3] } },
            },
          },
          m.etag,
        ),
      )
      // Errors around secrets: wrong places, wrong sizes, stale validators, bad types.
      const stale = p.etag
      keep(await patchGroup(d, 'providers', { profiles: { p: { api_key: SECRETS[0] } } }, stale))
      keep(
        await patchGroup(
          d,
          'providers',
          { profiles: { p: { api_key: `${SECRETS[0]}${'x'.repeat(5000)}` } } },
          '*',
        ),
      )
      keep(await patchGroup(d, 'providers', { profiles: { p: { api_key: 42, note: SECRETS[0] } } }, '*'))
      keep(await patchGroup(d, 'providers', { profiles: { q: { api_key: SECRETS[0] } } }, '*'))
      keep(await patchGroup(d, 'mcp', { servers: { local: { bearerToken: SECRETS[1] } } }, '*'))
      keep(
        await patchGroup(
          d,
          'mcp',
          { servers: { bad: { command: 'x', env: { 'not a name': SECRETS[3] } } } },
          '*',
        ),
      )
      keep(
        await patchGroup(
          d,
          'providers',
          `{"profiles": {"p": {"api_key": "${SECRETS[0]}", "api_key": "x"}}}`,
          '*',
        ),
      )
      for (const path of [
        '/settings',
        ...['providers', 'mcp', 'extensions', 'capabilities', 'models', 'ui'].map(
          (g) => `/settings?group=${g}`,
        ),
        '/server',
        '/sessions',
        '/storage',
        '/openapi.json',
      ]) {
        keep(await d.request({ path }))
      }
      for (const r of seen) {
        const text = `${JSON.stringify(r.headers)}\n${r.text()}`
        for (const s of SECRETS) assert.equal(text.includes(s), false, `${s} in a ${r.status} response`)
      }
      assert.ok(seen.some((r) => r.status === 412))
      assert.ok(seen.some((r) => r.status === 400))
    } finally {
      await d.stop()
    }
    const logs = join(d.home, 'logs')
    for (const file of readdirSync(logs)) {
      const text = readFileSync(join(logs, file), 'utf8')
      for (const s of SECRETS) assert.equal(text.includes(s), false, `${s} in ${file}`)
    }
  })
})
