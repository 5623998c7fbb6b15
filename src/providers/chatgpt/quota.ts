// ChatGPT accounts' usage: the `codex` feed. The core reads Codex's own auth file, so it is
// handed one holding the access token and the workspace id only (CodexBar's
// CodexOAuthCredentials: `tokens.access_token`, `tokens.account_id`), under CODEX_HOME.
import { join } from 'node:path'
import { type QuotaFacts, textAt } from '../shared/quota.ts'
import { chatgptAccountId } from './signin.ts'

export const quota: QuotaFacts = {
  feed: 'codex',
  handoff(credential, dir) {
    const tokens = {
      access_token: textAt(credential, 'access') ?? '',
      account_id: chatgptAccountId(credential),
    }
    return {
      env: { CODEX_HOME: join(dir, 'codex') },
      files: { 'codex/auth.json': JSON.stringify({ tokens }) },
    }
  },
}
