// Claude accounts' usage: the `claude` feed, read with the OAuth access token the core is
// handed in CodexBar's variables (its ClaudeOAuthCredentials environment override); the
// usage endpoint asks for the `user:profile` scope, which a subscription sign-in grants.
import { type QuotaFacts, textAt } from '../shared/quota.ts'

export const quota: QuotaFacts = {
  feed: 'claude',
  handoff(credential) {
    return {
      env: {
        CODEXBAR_CLAUDE_OAUTH_TOKEN: textAt(credential, 'access') ?? '',
        CODEXBAR_CLAUDE_OAUTH_SCOPES: 'user:profile',
      },
      files: {},
    }
  },
}
