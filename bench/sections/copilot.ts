// copilot against openai-compatible in the same daemon and the same run (side-by-side.ts):
// both profiles speak Responses to the shared upstream, openai-compatible at `/v1/responses`,
// copilot at `/responses` (Copilot's base has no `/v1`) with a hand-written account in
// creds.json whose Copilot token is valid for a day (no exchange during the run). So the
// figures compare the copilot path (pool, run profile, headers, body rules) with the plain one.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { homeWithConfig, type Row, type Section, spawnDaemon } from '../lib.ts'
import { sideBySide, upstream } from './side-by-side.ts'

export const copilot: Section = {
  name: 'copilot',
  description: 'copilot vs openai-compatible: first token and a 2,000-delta reply',
  async run(): Promise<Row[]> {
    const up = await upstream()
    const home = homeWithConfig({
      providers: {
        default_profile: 'oc',
        profiles: {
          oc: { endpoint: `${up.url}/v1`, protocol: 'responses', model: 'm' },
          cp: { extension: 'copilot', protocol: 'responses', model: 'gpt-5.2-codex' },
        },
      },
    })
    const account = {
      type: 'oauth',
      github: 'ghu_bench',
      access: 'tid=bench;exp=9999999999;proxy-ep=proxy.bench',
      expires: Date.now() + 86_400_000,
      api: up.url,
      host: 'github.com',
      user_id: 1,
      login: 'bench',
    }
    writeFileSync(join(home, 'creds.json'), JSON.stringify({ accounts: { copilot: account } }), {
      mode: 0o600,
    })
    const d = await spawnDaemon(home)
    try {
      const rows = await sideBySide(d, up, home, 'oc', 'cp', 'copilot')
      if (!up.paths.has('/responses')) throw new Error('no turn reached the copilot route')
      return rows
    } finally {
      await d.stop()
      up.close()
    }
  },
}
