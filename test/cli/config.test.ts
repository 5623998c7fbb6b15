// `hearth config get|set` and `hearth profile add` against a running daemon.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { runCli, startDaemon, type TestDaemon } from '../helpers/daemon.ts'
import { fileJson } from '../settings/helpers.ts'

describe('hearth config and hearth profile', () => {
  let d: TestDaemon
  before(async () => {
    d = await startDaemon()
  })
  after(async () => {
    await d.stop()
  })
  const cli = (args: string[], stdin?: string) => runCli([...args, '--home', d.home], {}, { stdin })

  it('profile add saves the profile and reads the key from standard input', async () => {
    const r = await cli(
      [
        'profile',
        'add',
        'work',
        '--endpoint',
        'https://api.example.com/v1',
        '--model',
        'm1',
        '--api-key-stdin',
        '--default',
      ],
      'sk-FROM-STDIN\n',
    )
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /saved profile work \(with its API key\)/)
    assert.deepEqual(fileJson(d.home, 'creds.json').providers.work, { apiKey: 'sk-FROM-STDIN' })
    const get = await cli(['config', 'get', 'providers'])
    assert.equal(get.code, 0, get.stderr)
    const shown = JSON.parse(get.stdout)
    assert.equal(shown.settings.default_profile, 'work')
    assert.deepEqual(shown.settings.profiles.work.api_key, { saved: true })
    assert.equal(get.stdout.includes('sk-FROM-STDIN'), false)
  })

  it('config set applies a merge patch; errors are the daemon problems, exit 1', async () => {
    const set = await cli(['config', 'set', 'ui', '{"theme": "dark"}'])
    assert.equal(set.code, 0, set.stderr)
    assert.equal(JSON.parse(set.stdout).theme, 'dark')
    const bad = await cli(['config', 'set', 'ui', '{"colour": 1}'])
    assert.equal(bad.code, 1)
    assert.match(bad.stderr, /colour/)
    const usage = await cli(['config', 'set', 'nogroup', '{}'])
    assert.equal(usage.code, 2)
    const notJson = await cli(['config', 'set', 'ui', '{'])
    assert.equal(notJson.code, 2)
    const all = await cli(['config', 'get'])
    assert.deepEqual(Object.keys(JSON.parse(all.stdout).settings), [
      'providers',
      'mcp',
      'extensions',
      'capabilities',
      'models',
      'ui',
      'tools',
      'compaction',
      'instructions',
    ])
  })
})
