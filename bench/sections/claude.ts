// claude against openai-compatible in the same daemon and the same run (side-by-side.ts):
// the claude profile reaches the shared upstream's Messages stream through
// HEARTH_CLAUDE_BASE_URL, with a hand-written account in creds.json.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { homeWithConfig, type Row, type Section, spawnDaemon } from '../lib.ts'
import { sideBySide, upstream } from './side-by-side.ts'

export const claude: Section = {
  name: 'claude',
  description: 'claude vs openai-compatible: first token and a 2,000-delta reply',
  async run(): Promise<Row[]> {
    const up = await upstream()
    const home = homeWithConfig({
      providers: {
        default_profile: 'oc',
        profiles: {
          oc: { endpoint: `${up.url}/v1`, protocol: 'responses', model: 'm' },
          sub: { extension: 'claude', protocol: 'chat_completions', model: 'claude-sonnet-4-5-20250929' },
        },
      },
    })
    const account = { type: 'oauth', access: 'sk-ant-oat01-bench', expires: Date.now() + 86_400_000 }
    writeFileSync(join(home, 'creds.json'), JSON.stringify({ accounts: { claude: account } }), {
      mode: 0o600,
    })
    const d = await spawnDaemon(home, { env: { HEARTH_CLAUDE_BASE_URL: up.url } })
    try {
      return await sideBySide(d, up, home, 'oc', 'sub', 'claude')
    } finally {
      await d.stop()
      up.close()
    }
  },
}
