// Vendor constants of the Antigravity sign-in and the Cloud Code Assist backend
// (facts: ../../../docs/providers.md, "antigravity"). The OAuth client is the public
// installed-app client the Antigravity app ships; its "secret" is not one.

export const ANTIGRAVITY_CLIENT_ID =
  '1071006060591-tmhssin2h21lcre235vtolojh4g403ep.apps.googleusercontent.com'
export const ANTIGRAVITY_CLIENT_SECRET = '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'
export const ANTIGRAVITY_SCOPES: readonly string[] = [
  'https://www.googleapis.com/auth/cloud-platform',
  'https://www.googleapis.com/auth/userinfo.email',
  'https://www.googleapis.com/auth/userinfo.profile',
  'https://www.googleapis.com/auth/cclog',
  'https://www.googleapis.com/auth/experimentsandconfigs',
]

export const GOOGLE_AUTHORIZE_URL = 'https://accounts.google.com/o/oauth2/v2/auth'
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token'
/** Google's userinfo, on the token endpoint's host family (see `userinfoUrlFor`). */
export const GOOGLE_USERINFO_PATH = '/oauth2/v1/userinfo?alt=json'
export const GOOGLE_USERINFO_URL = `https://www.googleapis.com${GOOGLE_USERINFO_PATH}`
/** Where a person verifies a Google account when the backend names no page of its own. */
export const GOOGLE_ACCOUNTS_URL = 'https://accounts.google.com/'

/** The Cloud Code Assist backend (production host). */
export const CLOUD_CODE_BASE_URL = 'https://cloudcode-pa.googleapis.com'
/**
 * The hosts a step and onboarding try, in this order (the vendor's clients' order: the
 * daily sandbox, autopush, then production), moving on when one cannot be reached or
 * answers 404 or 5xx.
 */
export const CLOUD_CODE_HOSTS: readonly string[] = [
  'https://daily-cloudcode-pa.sandbox.googleapis.com',
  'https://autopush-cloudcode-pa.sandbox.googleapis.com',
  CLOUD_CODE_BASE_URL,
]
/**
 * The hosts the project lookup (`loadCodeAssist`) tries, in this order: production first,
 * then the daily sandbox and autopush (the vendor's clients find the project on production
 * most reliably). Onboarding (`onboardUser`) tries `CLOUD_CODE_HOSTS`, as they do.
 */
export const PROJECT_LOOKUP_HOSTS: readonly string[] = [
  CLOUD_CODE_BASE_URL,
  'https://daily-cloudcode-pa.sandbox.googleapis.com',
  'https://autopush-cloudcode-pa.sandbox.googleapis.com',
]
export const CALLBACK_PORT = 51121
export const CALLBACK_PATH = '/oauth-callback'

/** The project requests use when the backend names none for an account that has a tier. */
export const FALLBACK_PROJECT = 'rising-fact-p41fc'
/** The tier an account is onboarded to when the backend marks none as the default. */
export const DEFAULT_TIER = 'FREE'

/** `metadata` of the project calls (loadCodeAssist, onboardUser) and `Client-Metadata`. */
export const CLIENT_METADATA = {
  ideType: 'ANTIGRAVITY',
  platform: 'PLATFORM_UNSPECIFIED',
  pluginType: 'GEMINI',
} as const

/** The vendor's update manifest: its text names the current version. */
export const VERSION_MANIFEST_URL = 'https://antigravity-auto-updater-974169037036.us-central1.run.app'
/** The version sent when neither the manifest nor HEARTH_ANTIGRAVITY_VERSION gives one. */
export const VERSION_FALLBACK = '1.18.3'

/** The thought-signature placeholder Gemini accepts on a call whose signature is not replayed. */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator'

/** The chooser detail: the vendor's policy, stated before any sign-in starts. */
export const ANTIGRAVITY_POLICY =
  "Google's Antigravity terms forbid using it through third-party clients such as hearth, and " +
  'Google has suspended accounts used this way. Sign in only if you accept that risk; the ' +
  'vertex extension (Gemini on Vertex AI with your own Google Cloud credentials) is the ' +
  'supported way to use Gemini models.'
