import type { SettingsGroup } from '../../schemas/settings.ts'
import { extensions } from './extensions.ts'
import { mcp } from './mcp.ts'
import { providers } from './providers.ts'
import { capabilities, compaction, instructions, models, tools, ui } from './simple.ts'
import type { GroupCodec } from './types.ts'

export const GROUPS: Record<SettingsGroup, GroupCodec> = {
  providers,
  mcp,
  extensions,
  capabilities,
  models,
  ui,
  tools,
  compaction,
  instructions,
}
