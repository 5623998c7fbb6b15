// GitHub Copilot's public facts (docs/providers.md, "copilot"). The provider is not yet
// registered: nothing outside this folder and its tests uses these.

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
 * What the editor plugins send and pi sends on the token exchange and the API (pi 83378aa).
 * Whether the exchange insists on them is unverified, and whether hearth should send another
 * program's names is not decided yet.
 */
export const EDITOR_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'user-agent': 'GitHubCopilotChat/0.35.0',
  'editor-version': 'vscode/1.107.0',
  'editor-plugin-version': 'copilot-chat/0.35.0',
  'copilot-integration-id': 'vscode-chat',
})
