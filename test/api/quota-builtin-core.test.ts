// The daemon's default path end to end: no HEARTH_USAGE_CORE, so the poller runs hearth's
// own built core (dist/usage-core.mjs), which reads the hand-off the driver wrote and calls
// the fake vendor usage endpoints; GET /server serves what they answered. The fakes refuse
// a wrong bearer, account header or key, so a reading proves the hand-off reached them.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { FakeUsageEndpoints, ISSUED } from '../fakes/usage-endpoints.ts'
import { startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'
import { chatgptAccount, HOUR, writeHome } from '../helpers/quota-poll.ts'

interface Served {
  provider: string
  account: string
  limit_id: string
  used_percent: number | null
  error: string | null
}

describe('quota with the built-in usage core', () => {
  let fake: FakeUsageEndpoints
  let d: TestDaemon

  before(async () => {
    fake = await FakeUsageEndpoints.start()
    const home = tempHome()
    writeHome(home, {
      config: {
        providers: {
          default_profile: 'glm',
          profiles: {
            glm: { endpoint: 'https://api.z.ai/api/paas/v4', protocol: 'chat_completions', model: 'glm-4.6' },
          },
        },
      },
      creds: {
        accounts: {
          chatgpt: chatgptAccount({ access: ISSUED.chatgptToken, account_id: ISSUED.chatgptAccount }),
          claude: {
            type: 'oauth',
            access: ISSUED.claudeToken,
            refresh: 'claude-refresh-token',
            expires: Date.now() + HOUR,
            email: 'ben@example.test',
          },
        },
        providers: { glm: { apiKey: ISSUED.zaiKey } },
      },
    })
    d = await startDaemon({
      home,
      env: {
        HEARTH_CHATGPT_USAGE_URL: `${fake.url}/backend-api`,
        HEARTH_CLAUDE_USAGE_URL: fake.url,
        HEARTH_ZAI_USAGE_URL: fake.url,
      },
    })
  })
  after(async () => {
    await d?.stop()
    await fake?.close()
  })

  it('polls each account through the built core and serves the vendors’ figures', async () => {
    const deadline = Date.now() + 60_000
    let quota: Served[] = []
    while (new Set(quota.map((r) => r.provider)).size < 3) {
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for three feeds: ${JSON.stringify(quota)}`)
      await new Promise((r) => setTimeout(r, 50))
      quota = ((await d.request({ path: '/server' })).json().quota as Served[] | null) ?? []
    }
    const primary = (provider: string) =>
      quota.find((r) => r.provider === provider && r.limit_id === 'primary')
    assert.deepEqual(
      ['codex', 'claude', 'zai'].map((p) => [
        p,
        primary(p)?.account,
        primary(p)?.used_percent,
        primary(p)?.error,
      ]),
      [
        ['codex', 'ann@example.test', 22, null],
        ['claude', 'ben@example.test', 12.5, null],
        ['zai', 'glm', 25, null],
      ],
    )
    assert.equal(fake.of('codex')[0].headers.authorization, `Bearer ${ISSUED.chatgptToken}`)
    assert.equal(fake.of('claude-usage')[0].headers.authorization, `Bearer ${ISSUED.claudeToken}`)
  })
})
