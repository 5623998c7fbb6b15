// Which accounts and profiles the poller finds (accounts.ts over the descriptors), and
// Antigravity's healing rule for limit marks (src/providers/antigravity/meters.ts).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { AccountPlugin } from '../../src/auth/accounts.ts'
import { healMarks } from '../../src/providers/antigravity/meters.ts'
import { PROVIDERS } from '../../src/providers/registry.ts'
import { discoverAccounts } from '../../src/quota/accounts.ts'
import type { FileContents } from '../../src/settings/files.ts'
import { signInSettings } from '../../src/settings/groups/providers.ts'

const signIns = signInSettings({})
const plugins = new Map<string, AccountPlugin>(
  PROVIDERS.flatMap((p) => (p.signIn ? [[p.id, p.signIn.plugin(signIns[p.id] ?? {}) as AccountPlugin]] : [])),
)

const files = (over: Partial<FileContents> = {}): FileContents => ({
  'config.json': {},
  'creds.json': {},
  'extensions.json': {},
  ...over,
})

describe('quota accounts', () => {
  it('finds every signed-in account with a feed, labelled by e-mail, else by id', () => {
    const found = discoverAccounts(
      files({
        'creds.json': {
          accounts: {
            claude: [
              { type: 'oauth', access: 'a1', refresh: 'r1', expires: 1, email: 'ann@example.test' },
              { type: 'oauth', access: 'a2', refresh: 'r2', expires: 1 },
            ],
            antigravity: {
              type: 'oauth',
              access: 'a3',
              refresh: 'r3',
              expires: 1,
              projectId: 'p',
              email: 'cy@x.test',
            },
          },
        },
      }),
      () => plugins,
    )
    assert.deepEqual(
      found.map((a) => [a.feed, a.label.replace(/-[0-9a-f]{16}$/, '-<id>')]),
      [
        ['claude', 'ann@example.test'],
        ['claude', 'claude-<id>'],
        ['antigravity', 'cy@x.test'],
      ],
    )
    assert.equal(new Set(found.map((a) => a.key)).size, 3, 'keys are distinct')
    const again = discoverAccounts(
      files({
        'creds.json': { accounts: { claude: { access: 'a1', refresh: 'r1', email: 'ann@example.test' } } },
      }),
      () => plugins,
    )
    assert.equal(again[0].key, found[0].key, 'a key is stable')
  })

  it('finds API-key profiles whose host has a feed, and skips the others and those without a key', () => {
    const found = discoverAccounts(
      files({
        'config.json': {
          providers: {
            profiles: {
              glm: { endpoint: 'https://api.z.ai/api/paas/v4', model: 'glm-4.6' },
              mm: { endpoint: 'https://api.minimax.io/v1', model: 'MiniMax-M2' },
              other: { endpoint: 'https://api.example.test/v1', model: 'x' },
              nokey: { endpoint: 'https://open.bigmodel.cn/api/paas/v4', model: 'glm-4.6' },
            },
          },
        },
        'creds.json': { providers: { glm: { apiKey: 'k1' }, mm: { apiKey: 'k2' }, other: { apiKey: 'k3' } } },
      }),
      () => plugins,
    )
    assert.deepEqual(
      found.map((a) => [a.key, a.feed, a.label]),
      [
        ['profile/glm', 'zai', 'glm'],
        ['profile/mm', 'minimax', 'mm'],
      ],
    )
  })

  it('leaves out the accounts of an extension turned off', () => {
    const found = discoverAccounts(
      files({
        'creds.json': { accounts: { claude: { access: 'a', refresh: 'r', email: 'ann@example.test' } } },
        'extensions.json': { extensions: { claude: { enabled: false } } },
      }),
      () => plugins,
    )
    assert.deepEqual(found, [])
  })
})

describe('antigravity limit marks healed by readings', () => {
  const reset = 1_800_000_000_000
  const limits = [
    { limitId: 'gemini-3-pro', label: 'Gemini 3 Pro', resetAtMs: reset },
    { limitId: 'secondary', label: 'Claude + GPT', resetAtMs: reset + 3_600_000 },
  ]

  it('re-keys a legacy mark equal to a limit’s reset to that limit’s meter', () => {
    const healed = healMarks({ access: 'a', limitedUntil: reset + 400 }, limits)
    assert.deepEqual(healed, { access: 'a', limitedMeters: { gemini: reset + 400 } })
  })

  it('a pool of Claude and GPT models marks both meters; a later mark already there is kept', () => {
    const healed = healMarks(
      { limitedUntil: reset + 3_600_000, limitedMeters: { claude: reset + 7_200_000 } },
      limits,
    )
    assert.deepEqual(healed, { limitedMeters: { claude: reset + 7_200_000, 'gpt-oss': reset + 3_600_000 } })
  })

  it('clears a mark no reset matches', () => {
    assert.deepEqual(healMarks({ access: 'a', limitedUntil: reset + 5000 }, limits), { access: 'a' })
  })

  it('changes nothing without a legacy mark', () => {
    assert.equal(healMarks({ access: 'a', limitedMeters: { gemini: reset } }, limits), null)
  })
})
