// A home with a copilot profile and Copilot's model list as the fake upstream serves it,
// shared by the copilot model tests.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tempHome } from '../helpers/daemon.ts'

/** Copilot's `/models` items: on /responses, on /chat/completions, on both, and on Messages only. */
export const COPILOT_MODELS = [
  {
    id: 'gpt-5.2-codex',
    name: 'GPT-5.2-Codex',
    supported_endpoints: ['/responses'],
    policy: { state: 'enabled' },
    capabilities: {
      limits: { max_context_window_tokens: 400000, max_output_tokens: 128000 },
      supports: { tool_calls: true, reasoning_effort: ['low', 'medium', 'high'] },
    },
  },
  {
    id: 'gpt-4.1',
    name: 'GPT-4.1',
    supported_endpoints: ['/chat/completions'],
    capabilities: {
      limits: { max_context_window_tokens: 128000, max_output_tokens: 16384 },
      supports: { tool_calls: true, vision: true },
    },
  },
  {
    // Served on both: Responses is taken, where the name alone would say Chat Completions.
    id: 'gpt-5-mini',
    name: 'GPT-5 mini',
    supported_endpoints: ['/chat/completions', '/responses'],
    capabilities: { limits: { max_context_window_tokens: 264000 }, supports: { tool_calls: true } },
  },
  {
    id: 'claude-opus-4.5',
    name: 'Claude Opus 4.5',
    supported_endpoints: ['/v1/messages'],
    capabilities: { limits: { max_context_window_tokens: 200000 } },
  },
]

/** A direct copilot account (its GitHub token is the API's token), stored as a sign-in would. */
export const ACCOUNT = {
  type: 'oauth',
  mode: 'direct',
  github: 'ghu_account_token_1234',
  access: 'ghu_account_token_1234',
  host: 'github.com',
  user_id: 42,
  login: 'octocat',
}

/** A home with profile `cp` (extension copilot, `model`) and, when given, the account. */
export function copilotHome(opts: { account?: Record<string, unknown> | null; model?: string } = {}): string {
  const home = tempHome()
  mkdirSync(home, { recursive: true })
  const cp = { extension: 'copilot', model: opts.model ?? 'gpt-4.1' }
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({ providers: { default_profile: 'cp', profiles: { cp } } }),
  )
  const account = opts.account === undefined ? ACCOUNT : opts.account
  if (account) writeFileSync(join(home, 'creds.json'), JSON.stringify({ accounts: { copilot: account } }))
  return home
}
