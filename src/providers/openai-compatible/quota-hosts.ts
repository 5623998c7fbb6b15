// API-key profiles whose server reports its plan's usage: the profile's endpoint host names
// the usage feed, and the usage core is handed the profile's key in the variable that
// feed reads (CodexBar's names, so its CLI can stand in for hearth's core), with the public
// variables that pick the feed's region. A host not listed has no feed and is not polled.
// docs/quota.md ("The usage core") lists the hosts and their sources in CodexBar.
import { MINIMAX_FEED } from './usage-minimax.ts'
import { ZAI_FEED, ZAI_HOST_ENV, ZAI_KEY_ENV } from './usage-zai.ts'

export interface QuotaHost {
  /** The usage feed's provider id. */
  feed: string
  /** The environment variable the feed reads the API key from. */
  keyEnv: string
  /** Variables (never secret) the core is handed beside the key: the region's host. */
  env: Readonly<Record<string, string>>
}

export const QUOTA_FEED_BY_HOST: Readonly<Record<string, QuotaHost>> = {
  // z.ai's global API and BigModel CN's (ZaiAPIRegion.swift): one feed, the region named by
  // Z_AI_API_HOST (ZaiSettingsReader.swift), since a BigModel key is unknown to api.z.ai.
  'api.z.ai': { feed: ZAI_FEED, keyEnv: ZAI_KEY_ENV, env: {} },
  'open.bigmodel.cn': { feed: ZAI_FEED, keyEnv: ZAI_KEY_ENV, env: { [ZAI_HOST_ENV]: 'open.bigmodel.cn' } },
  // MiniMax's global and China mainland APIs (MiniMaxAPIRegion.swift): the feed tries the
  // global host and then the China one when the key is rejected (MiniMaxUsageFetcher.swift).
  'api.minimax.io': { feed: MINIMAX_FEED, keyEnv: 'MINIMAX_API_KEY', env: {} },
  'api.minimaxi.com': { feed: MINIMAX_FEED, keyEnv: 'MINIMAX_API_KEY', env: {} },
}
