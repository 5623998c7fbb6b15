// Vendor constants shared by the ChatGPT sign-in and transport.

/** Sent as `originator` in the authorize URL and on every backend request. */
export const CHATGPT_ORIGINATOR = 'hearth'
export const CHATGPT_SCOPE = 'openid profile email offline_access'
export const CHATGPT_CALLBACK_PATH = '/auth/callback'

/** The ChatGPT backend a profile without an endpoint talks to. */
export const CHATGPT_ENDPOINT = 'https://chatgpt.com/backend-api'
