// Vendor constants shared by the ChatGPT sign-in and transport.

/** Sent as `originator` in the authorize URL and on every backend request. */
export const CHATGPT_ORIGINATOR = 'hearth'
export const CHATGPT_SCOPE = 'openid profile email offline_access'
export const CHATGPT_CALLBACK_PATH = '/auth/callback'

/** The public OAuth client (the Codex CLI's), used unless settings name another. */
export const CHATGPT_ISSUER = 'https://auth.openai.com'
export const CHATGPT_CLIENT_ID = 'app_EMoamEEZ73f0CkXaXp7hrann'
/** The redirect registered with the client: `http://localhost:1455/auth/callback`. */
export const CHATGPT_CALLBACK_PORT = 1455

/** The ChatGPT backend a profile without an endpoint talks to. */
export const CHATGPT_ENDPOINT = 'https://chatgpt.com/backend-api'
