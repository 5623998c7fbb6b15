// API-key profiles whose server reports its plan's usage: the profile's endpoint host names
// the usage feed, and the usage core is handed the profile's key in the variable that
// feed reads (CodexBar's names, so its CLI can stand in for hearth's core). A host not
// listed has no feed and is not polled. docs/quota.md lists the hosts and their sources.

export interface QuotaHost {
  /** The usage feed's provider id. */
  feed: string
  /** The environment variable the feed reads the API key from. */
  keyEnv: string
}

export const QUOTA_FEED_BY_HOST: Readonly<Record<string, QuotaHost>> = {
  'api.z.ai': { feed: 'zai', keyEnv: 'Z_AI_API_KEY' },
  'open.bigmodel.cn': { feed: 'zai', keyEnv: 'Z_AI_API_KEY' },
  'api.minimax.io': { feed: 'minimax', keyEnv: 'MINIMAX_API_KEY' },
  'api.minimaxi.com': { feed: 'minimax', keyEnv: 'MINIMAX_API_KEY' },
}
