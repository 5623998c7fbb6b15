// The environment a command gets: the kernel's own, minus hearth's secrets and anything that
// looks like one. The kernel process holds what the providers need (API keys, cloud
// credentials, the daemon's own HEARTH_* variables); a command the model writes must not be
// able to print them, send them anywhere or use them, so they never reach its environment.
//
// The rule (docs/tools-exec.md, "Environment"): a variable is dropped when
//   1. its name starts with `HEARTH_` (hearth's own: home, instance, log level, future tokens);
//   2. it is one of the credentials hearth itself reads (PROVIDER_SECRETS below);
//   3. one of its `_`-separated words says it holds a secret: KEY, TOKEN, SECRET, PASSWORD,
//      CREDENTIAL… (`OPENAI_API_KEY`, `GH_TOKEN`, `AWS_SECRET_ACCESS_KEY`, `PGPASSWORD`,
//      `GOOGLE_APPLICATION_CREDENTIALS`), compared without regard to case;
//   4. it hands out a capability rather than a value (`SSH_AUTH_SOCK`: signing as the user).
// Matching whole words rather than substrings keeps harmless names such as
// `TOKENIZERS_PARALLELISM` or `KEYTIMEOUT`. A secret in an innocent name is caught where it has
// a recognizable shape: a URL whose user info carries a password (`DATABASE_URL=
// postgres://u:secret@db/x`) reaches the command without the password (`postgres://u@db/x`),
// so the variable still says where to connect but not how to get in. Other secrets in
// innocent names are a known limit of the threat model.

/** Credentials hearth reads (../NAMES.md, providers.md); most also match the word rule. */
const PROVIDER_SECRETS: ReadonlySet<string> = new Set([
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'OPENROUTER_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'GOOGLE_CLOUD_API_KEY',
  'GOOGLE_GENERATIVE_AI_API_KEY',
  'MISTRAL_API_KEY',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_BEARER_TOKEN_BEDROCK',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  'AWS_CONTAINER_AUTHORIZATION_TOKEN',
  'CODEXBAR_CLAUDE_OAUTH_TOKEN',
  'ANTIGRAVITY_OAUTH_CREDENTIALS_JSON',
])

/** Variables that grant a power (an agent socket) rather than hold a value. */
const CAPABILITIES: ReadonlySet<string> = new Set(['SSH_AUTH_SOCK', 'GPG_AGENT_INFO'])

/** Words that mark a secret when they stand as a whole `_`-separated part of the name. */
const SECRET_WORDS: ReadonlySet<string> = new Set([
  'KEY',
  'KEYS',
  'APIKEY',
  'TOKEN',
  'TOKENS',
  'SECRET',
  'SECRETS',
  'PASSWORD',
  'PASSWD',
  'PASSPHRASE',
  'CREDENTIAL',
  'CREDENTIALS',
  'CREDS',
])

/** Word endings that mark a secret even glued to a prefix (`PGPASSWORD`, `GITHUBTOKEN`). */
const SECRET_ENDINGS = ['PASSWORD', 'PASSWD', 'SECRET', 'TOKEN', 'APIKEY'] as const

/** Whether a variable of this name must not reach a command (the rule above). */
export function isSecretName(name: string): boolean {
  const upper = name.toUpperCase()
  if (upper.startsWith('HEARTH_')) return true
  if (PROVIDER_SECRETS.has(upper) || CAPABILITIES.has(upper)) return true
  for (const word of upper.split(/[^A-Z0-9]+/)) {
    if (SECRET_WORDS.has(word)) return true
    if (SECRET_ENDINGS.some((end) => word.endsWith(end))) return true
  }
  return false
}

/**
 * `scheme://user:password@` anywhere in a value (several URLs may share one, comma-separated):
 * the scheme and user name are kept, the password goes. As URL parsers do, the user info ends
 * at the last `@` of the authority (before the first `/`, `?` or `#`), so a port or a path
 * holding `@` is left alone and a password holding an unescaped `@` is caught whole.
 */
const URL_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^:@/?#\s,]*):[^/?#\s,]*@(?=[^@/?#\s,]*(?:[/?#\s,]|$))/gi

/** `value` with the password of every URL's user info removed (`postgres://u@db/x`). */
export function withoutUrlPasswords(value: string): string {
  return value.replace(URL_PASSWORD, '$1@')
}

/**
 * The environment for a command: `source` (the kernel's environment) without the variables
 * isSecretName() refuses, and without the passwords of URLs in the values of the rest. PATH,
 * HOME, LANG, TERM, USER, SHELL and the rest pass unchanged.
 */
export function commandEnv(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || isSecretName(name)) continue
    env[name] = withoutUrlPasswords(value)
  }
  return env
}
