// GET /models for a claude profile: the six fixed families only, and only those the
// catalogue in use lists; a refreshed cache adds a family without a restart. Claude rows
// carry the catalogue's metadata.
import assert from 'node:assert/strict'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { CLAUDE_FAMILIES, isClaudeFamilyModel } from '../../src/providers/claude/families.ts'
import { startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'

const SNAPSHOT_FAMILIES = [
  'claude-haiku-4-5-20251001',
  'claude-opus-4-1-20250805',
  'claude-opus-4-5-20251101',
  'claude-sonnet-4-5-20250929',
]

describe('claude models', () => {
  let d: TestDaemon
  before(async () => {
    const home = tempHome()
    mkdirSync(home, { recursive: true })
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        providers: { profiles: { sub: { extension: 'claude', model: 'claude-sonnet-4-5-20250929' } } },
      }),
    )
    d = await startDaemon({ home })
  })
  after(() => d.stop())

  const ids = async (q: string) => {
    const r = await d.request({ path: `/models?${q}` })
    assert.equal(r.status, 200, r.text())
    return r.json().items
  }

  it('six families in the table; ids of other families and older models are not among them', () => {
    assert.equal(CLAUDE_FAMILIES.length, 6)
    assert.ok(isClaudeFamilyModel('claude-opus-4-6'))
    assert.ok(isClaudeFamilyModel('claude-sonnet-4-5'))
    assert.ok(!isClaudeFamilyModel('claude-3-7-sonnet-20250219'))
    assert.ok(!isClaudeFamilyModel('claude-sonnet-4-20250514'))
  })

  it('the profile lists the families the snapshot has, with their metadata', async () => {
    const items = await ids('provider_profile=sub')
    assert.deepEqual(
      items.map((r: any) => r.id),
      SNAPSHOT_FAMILIES,
    )
    const opus = items.find((r: any) => r.id === 'claude-opus-4-5-20251101')
    assert.equal(opus.provider, 'anthropic')
    assert.equal(opus.context_window, 200_000)
    assert.equal(opus.max_output_tokens, 64_000)
    assert.equal(opus.reasoning, true)
    assert.deepEqual(
      (await ids('provider=claude')).map((r: any) => r.id),
      SNAPSHOT_FAMILIES,
    )
    assert.ok((await ids('provider=anthropic')).some((r: any) => r.id === 'claude-3-haiku-20240307'))
  })

  it('a refreshed catalogue that lists a new family adds it; one without a family drops it', async () => {
    const snapshot = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../src/models/snapshot.json'), 'utf8'),
    )
    const anthropic = snapshot.anthropic
    anthropic.models['claude-opus-4-6'] = {
      ...anthropic.models['claude-opus-4-5-20251101'],
      id: 'claude-opus-4-6',
    }
    delete anthropic.models['claude-opus-4-1-20250805']
    mkdirSync(join(d.home, 'cache'), { recursive: true })
    const tmp = join(d.home, 'cache', 'models.json.tmp')
    writeFileSync(tmp, JSON.stringify({ anthropic }))
    renameSync(tmp, join(d.home, 'cache', 'models.json'))
    assert.deepEqual(
      (await ids('provider_profile=sub')).map((r: any) => r.id),
      [
        'claude-haiku-4-5-20251001',
        'claude-opus-4-5-20251101',
        'claude-opus-4-6',
        'claude-sonnet-4-5-20250929',
      ],
    )
  })
})
