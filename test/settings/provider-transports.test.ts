// A profile can be saved only for a provider extension hearth has a transport for (the
// registry in src/providers/registry.ts decides; today every extension the protocol names
// has one); others are refused with provider_unsupported, and a hand-written profile of an
// unknown extension fails its turns before any request leaves the daemon.
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { providerIds } from '../../src/providers/registry.ts'
import { PROVIDER_EXTENSIONS } from '../../src/schemas/extensions.ts'
import { assertProblem } from '../api/hostile.ts'
import { startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'
import { idle, message, putInput, waitSession } from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'
import { fileJson, patchGroup, readGroup } from './helpers.ts'

const profileOf = (extension: string) => ({
  extension,
  // A bedrock endpoint must be a Bedrock host (any other is refused as invalid_settings).
  endpoint:
    extension === 'bedrock' ? 'https://bedrock-runtime.us-east-1.amazonaws.com' : 'https://x.example/v1',
  model: 'm',
})

describe('provider extensions without a transport', () => {
  it('every extension the protocol names has one now', () => {
    assert.deepEqual(new Set(providerIds()), new Set(PROVIDER_EXTENSIONS))
  })

  let d: TestDaemon
  before(async () => {
    const home = tempHome()
    mkdirSync(home, { recursive: true })
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        providers: {
          default_profile: 'hand',
          profiles: { hand: { extension: 'mystery', model: 'm' } },
        },
      }),
    )
    d = await startDaemon({ home })
  })
  after(async () => {
    await d.stop()
  })

  it('a turn of a hand-written profile of an unknown extension fails before any request (provider_not_configured)', async () => {
    const sid = await createSession(d)
    await putInput(d, sid, message('hello'))
    const failed = await waitSession(d, sid, idle)
    const error = failed.history.items.find((e: any) => e.kind === 'error')
    assert.equal(error.content.problem.code, 'provider_not_configured', JSON.stringify(error))
  })

  it('saving a profile is refused exactly for the extensions the registry has no transport for', async () => {
    // Remove the hand-written profile first: the group is checked whole.
    let { etag } = await readGroup(d, 'providers')
    const cleared = await patchGroup(
      d,
      'providers',
      { default_profile: null, profiles: { hand: null } },
      etag,
    )
    assert.equal(cleared.status, 200, cleared.text())
    const usable = new Set(providerIds())
    assert.ok(usable.has('openai-compatible') && usable.has('chatgpt'))
    for (const extension of PROVIDER_EXTENSIONS) {
      etag = (await readGroup(d, 'providers')).etag
      const name = `p-${extension}`
      const r = await patchGroup(d, 'providers', { profiles: { [name]: profileOf(extension) } }, etag)
      if (usable.has(extension)) {
        assert.equal(r.status, 200, `${extension}: ${r.text()}`)
      } else {
        const p = assertProblem(r, 400, 'provider_unsupported', extension)
        assert.match(String(p.detail), new RegExp(`${name}.*${extension}`))
        assert.equal(fileJson(d.home, 'config.json').providers.profiles[name], undefined)
      }
    }
  })
})
