// The feeds the usage core serves, by feed id: each provider folder's usage module brings its
// own (id, credential variables, endpoint, mapping); this table only lists them.
import { antigravityUsageFeed } from '../providers/antigravity/usage.ts'
import { codexUsageFeed } from '../providers/chatgpt/usage.ts'
import { claudeUsageFeed } from '../providers/claude/usage.ts'
import { copilotUsageFeed } from '../providers/copilot/usage.ts'
import { minimaxUsageFeed } from '../providers/openai-compatible/usage-minimax.ts'
import { zaiUsageFeed } from '../providers/openai-compatible/usage-zai.ts'
import type { UsageFeed } from '../providers/shared/usage-fetch.ts'

export const FEEDS: ReadonlyMap<string, UsageFeed> = new Map(
  [
    codexUsageFeed,
    claudeUsageFeed,
    antigravityUsageFeed,
    zaiUsageFeed,
    minimaxUsageFeed,
    copilotUsageFeed,
  ].map((f) => [f.id, f]),
)
