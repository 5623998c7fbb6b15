// creds.json always shows its three sections (accounts, providers, mcp), empty ones as {},
// whatever wrote it last: a saved key, a removed key, the start-time migration.
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { startDaemon, tempHome } from '../helpers/daemon.ts'
import { change, fileJson, modeOf } from './helpers.ts'

describe('creds.json sections', () => {
  it('has accounts, providers and mcp after every write, empty ones included', async () => {
    const d = await startDaemon()
    try {
      await change(d, 'providers', {
        profiles: { p: { endpoint: 'https://x.example/v1', model: 'm', api_key: 'sk-one' } },
      })
      const saved = fileJson(d.home, 'creds.json')
      assert.deepEqual(Object.keys(saved), ['accounts', 'providers', 'mcp'])
      assert.deepEqual(saved, { accounts: {}, providers: { p: { apiKey: 'sk-one' } }, mcp: {} })
      assert.equal(modeOf(d.home, 'creds.json'), 0o600)
      await change(d, 'providers', { profiles: { p: null } })
      assert.deepEqual(fileJson(d.home, 'creds.json'), { accounts: {}, providers: {}, mcp: {} })
    } finally {
      await d.stop()
    }
  })

  it('is written with all three at start: a new home, and a file an older start left short', async () => {
    const d = await startDaemon()
    try {
      assert.deepEqual(fileJson(d.home, 'creds.json'), { accounts: {}, providers: {}, mcp: {} })
      assert.equal(modeOf(d.home, 'creds.json'), 0o600)
    } finally {
      await d.stop()
    }
    const home = tempHome()
    mkdirSync(home, { recursive: true })
    writeFileSync(join(home, 'creds.json'), JSON.stringify({ providers: { p: { apiKey: 'sk-old' } } }), {
      mode: 0o600,
    })
    const again = await startDaemon({ home })
    try {
      const creds = fileJson(home, 'creds.json')
      assert.deepEqual(Object.keys(creds), ['accounts', 'providers', 'mcp'])
      assert.deepEqual(creds, { accounts: {}, providers: { p: { apiKey: 'sk-old' } }, mcp: {} })
    } finally {
      await again.stop()
    }
  })

  it('has all three after the start-time move of a hand-written key', async () => {
    const home = tempHome()
    mkdirSync(home, { recursive: true })
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        providers: {
          profiles: { hand: { endpoint: 'https://x.example/v1', model: 'm', apiKey: 'sk-hand' } },
        },
      }),
    )
    const d = await startDaemon({ home })
    try {
      assert.deepEqual(fileJson(home, 'creds.json'), {
        accounts: {},
        providers: { hand: { apiKey: 'sk-hand' } },
        mcp: {},
      })
    } finally {
      await d.stop()
    }
  })
})
