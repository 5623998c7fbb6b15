// Antigravity accounts' usage: the `antigravity` feed, read with the access token and the
// account's Code Assist project, handed as one JSON variable (CodexBar's
// ANTIGRAVITY_OAUTH_CREDENTIALS_JSON; no refresh token: the daemon refreshes). Readings
// heal the account's limit marks (meters.ts).
import { type QuotaFacts, textAt } from '../shared/quota.ts'
import { healMarks } from './meters.ts'

export const quota: QuotaFacts = {
  feed: 'antigravity',
  handoff(credential) {
    const expires = credential.expires
    const json = {
      access_token: textAt(credential, 'access') ?? '',
      project_id: textAt(credential, 'projectId'),
      email: textAt(credential, 'email'),
      expiry_date: typeof expires === 'number' && Number.isFinite(expires) ? expires : null,
    }
    return { env: { ANTIGRAVITY_OAUTH_CREDENTIALS_JSON: JSON.stringify(json) }, files: {} }
  },
  healMarks,
}
