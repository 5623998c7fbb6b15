// Vendor constants of the Claude subscription sign-in and its Messages requests
// (the public Claude Code OAuth client, as pi and opencode used it).

export const CLAUDE_CLIENT_ID = '9d1c250a-e61b-44d9-88ed-5944d1962f5e'
export const CLAUDE_AUTHORIZE_URL = 'https://claude.ai/oauth/authorize'
export const CLAUDE_TOKEN_URL = 'https://platform.claude.com/v1/oauth/token'
/** The redirect registered with the client: `http://localhost:53692/callback`, a fixed port. */
export const CLAUDE_CALLBACK_PORT = 53692
export const CLAUDE_CALLBACK_PATH = '/callback'
export const CLAUDE_SCOPE =
  'org:create_api_key user:profile user:inference user:sessions:claude_code user:mcp_servers user:file_upload'

/** The Messages API a profile without an endpoint talks to. */
export const CLAUDE_ENDPOINT = 'https://api.anthropic.com'

/** Test and proxy hooks: they replace the vendor URLs (and alone may name plain http). */
export const BASE_URL_ENV = 'HEARTH_CLAUDE_BASE_URL'
export const TOKEN_URL_ENV = 'HEARTH_CLAUDE_TOKEN_URL'

/** The Claude Code release whose client headers and attribution the requests carry. */
export const CLAUDE_CODE_VERSION = '2.1.75'
export const ANTHROPIC_VERSION = '2023-06-01'
/** The beta an OAuth token needs, and the ones Claude Code sends beside it. */
export const OAUTH_BETA = 'oauth-2025-04-20'
export const BETAS = ['claude-code-20250219', OAUTH_BETA, 'fine-grained-tool-streaming-2025-05-14'] as const
/** Only for budget-thinking models; adaptive thinking interleaves by itself. */
export const INTERLEAVED_THINKING_BETA = 'interleaved-thinking-2025-05-14'

/** The first system block the API expects of a subscription token (after the attribution). */
export const IDENTITY_TEXT = "You are Claude Code, Anthropic's official CLI for Claude."
/** The billing attribution, sent as text in system[0] (Claude Code stopped sending it as a header). */
export const BILLING_TEXT = `x-anthropic-billing-header: cc_version=${CLAUDE_CODE_VERSION}; cc_entrypoint=cli;`

/**
 * Said before a sign-in starts (GET /auth, `hearth login claude`, docs): Anthropic's terms
 * limit subscription tokens to its own apps.
 */
export const CLAUDE_POLICY =
  "Anthropic's terms allow Claude Pro/Max sign-in tokens only in Claude Code and Claude.ai; " +
  'using them in another tool breaches its Consumer Terms and the account may be restricted ' +
  'without notice. For use that fits the terms, use Amazon Bedrock (extension bedrock) or an ' +
  'Anthropic API key.'
