// GitHub Copilot's public facts (docs/providers.md, "copilot").
import { userAgent } from '../shared/user-agent.ts'

/** The Copilot editor plugins' OAuth app, whose tokens the Copilot token exchange accepts. */
export const COPILOT_EDITOR_CLIENT_ID = 'Iv1.b507a08c87ecfe98'
/** The only scope the device flow asks for. */
export const COPILOT_SCOPE = 'read:user'
export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code'
export const GITHUB_HOST = 'github.com'
/** Added to the polling interval by each `slow_down` that names no new interval (RFC 8628 §3.5). */
export const SLOW_DOWN_STEP_MS = 5_000

export interface GitHubUrls {
  deviceCode: string
  accessToken: string
  /** The REST API: api.github.com, or `api.<host>` for GitHub Enterprise Cloud. */
  api: string
}

/**
 * The device flow's and the REST API's URLs on a GitHub host (`github.com` or an
 * enterprise host such as `octocorp.ghe.com`), or on a base URL given whole (a test's fake,
 * whose REST API sits under `/api`).
 */
export function githubUrls(hostOrBase: string): GitHubUrls {
  if (/^https?:\/\//i.test(hostOrBase)) {
    const base = hostOrBase.replace(/\/+$/, '')
    return {
      deviceCode: `${base}/login/device/code`,
      accessToken: `${base}/login/oauth/access_token`,
      api: `${base}/api`,
    }
  }
  const host = hostOrBase.toLowerCase()
  return {
    deviceCode: `https://${host}/login/device/code`,
    accessToken: `https://${host}/login/oauth/access_token`,
    api: host === GITHUB_HOST ? 'https://api.github.com' : `https://api.${host}`,
  }
}

/** Copilot's API when neither the Copilot token nor its answer names one (opencode's default). */
export const COPILOT_API_URL = 'https://api.githubcopilot.com'

/**
 * The GitHub host signed in to: the settings' (github.com, an enterprise host), or a fake
 * GitHub's base URL that `HEARTH_COPILOT_GITHUB_URL` names in tests.
 */
export const githubHostOf = (configured: string): string =>
  process.env.HEARTH_COPILOT_GITHUB_URL || configured

/** The API of a direct credential; `HEARTH_COPILOT_API_URL` points tests at a fake. */
export const defaultApi = (): string => process.env.HEARTH_COPILOT_API_URL || COPILOT_API_URL

/**
 * What the editor plugins send on the token exchange and the API, as pi sends it (pi
 * 83378aa). The exchange serves the editor plugins' OAuth app, and a token it issued is
 * used as that app uses it.
 */
export const EDITOR_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'user-agent': 'GitHubCopilotChat/0.35.0',
  'editor-version': 'vscode/1.107.0',
  'editor-plugin-version': 'copilot-chat/0.35.0',
  'copilot-integration-id': 'vscode-chat',
})

/** `Openai-Intent` as both opencode and pi send it on model requests. */
const INTENT = { 'openai-intent': 'conversation-edits' }

/** Steps of an account whose GitHub token was exchanged. */
export const EXCHANGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  ...EDITOR_HEADERS,
  ...INTENT,
})

/** Steps that send a GitHub token as it is (hearth's own name, as opencode sends its own). */
export const DIRECT_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'user-agent': userAgent(),
  ...INTENT,
})
