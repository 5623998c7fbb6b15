// ChatGPT accounts' usage: the `codex` feed. The core reads Codex's own auth file, so it is
// handed one holding the access token and the workspace id only (CodexBar's
// CodexOAuthCredentials: `tokens.access_token`, `tokens.account_id`), under CODEX_HOME.
// CodexBar's reader also wants a `tokens.refresh_token` string and a recent `last_refresh`
// (else it answers that the file needs a refresh): the refresh token is handed empty, and
// the time is the hand-off's, when the access token is known to be fresh.
import { join } from 'node:path'
import { type QuotaFacts, textAt } from '../shared/quota.ts'
import { chatgptAccountId } from './signin.ts'

export const quota: QuotaFacts = {
  feed: 'codex',
  handoff(credential, dir) {
    const tokens = {
      access_token: textAt(credential, 'access') ?? '',
      refresh_token: '',
      account_id: chatgptAccountId(credential),
    }
    const file = { tokens, last_refresh: new Date().toISOString() }
    return {
      env: { CODEX_HOME: join(dir, 'codex') },
      files: { 'codex/auth.json': JSON.stringify(file) },
    }
  },
}
