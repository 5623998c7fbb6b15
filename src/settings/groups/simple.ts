// Groups without secrets, each a top-level key of config.json: `capabilities` (optional
// capabilities an operator may turn off), `models` (catalogue source and per-model
// overrides), `ui` (client preferences, including dismissed notices), `tools` (the default
// approval policy, the step limit, extra roots and network for commands: docs/tools.md) and
// `compaction` (automatic compaction and the default strategy: docs/context.md) and
// `instructions` (hearth's own instructions replaced or extended: docs/instructions.md).

import { APPROVAL_POLICIES, type ApprovalPolicy } from '../../schemas/common.ts'
import { HearthError } from '../../schemas/problems.ts'
import {
  COMPACTION_STRATEGIES,
  type CompactionStrategyName,
  OPTIONAL_CAPABILITIES,
} from '../../schemas/settings-simple.ts'
import type { FileContents, JsonObject } from '../files.ts'
import { isObject, mergePatch, objectAt, setOrDrop } from '../merge.ts'
import { copyFiles, type GroupCodec } from './types.ts'

export const DEFAULT_CATALOGUE_URL = 'https://models.dev/api.json'

/** A codec for a plain config.json group: merge patch onto its stored object. */
function plain(key: string, read: (stored: JsonObject) => unknown, check?: (stored: JsonObject) => void) {
  const codec: GroupCodec = {
    read: (files) => read(objectAt(files['config.json'], key)),
    apply(files: FileContents, patch) {
      const next = copyFiles(files)
      setOrDrop(next['config.json'], key, mergePatch(objectAt(next['config.json'], key), patch) as JsonObject)
      return next
    },
    check: (candidate) => check?.(objectAt(candidate['config.json'], key)),
  }
  return codec
}

export const capabilities = plain('capabilities', (s) =>
  Object.fromEntries(OPTIONAL_CAPABILITIES.map((c) => [c, s[c] !== false])),
)

export const models = plain(
  'models',
  (s) => ({
    catalogue_url: typeof s.catalogue_url === 'string' ? s.catalogue_url : DEFAULT_CATALOGUE_URL,
    overrides: objectAt(s, 'overrides'),
    cache_rules: Array.isArray(s.cache_rules) ? s.cache_rules : [],
  }),
  (s) => {
    for (const [id, o] of Object.entries(objectAt(s, 'overrides'))) {
      if (!isObject(o) || Object.keys(o).length === 0)
        throw new HearthError('invalid_settings', `models.overrides.${id} sets no fact`)
    }
  },
)

export const ui = plain('ui', (s) => ({
  dismissed_notices: Array.isArray(s.dismissed_notices) ? s.dismissed_notices : [],
  theme: typeof s.theme === 'string' ? s.theme : null,
  show_reasoning: s.show_reasoning !== false,
}))

export const TOOL_DEFAULTS = {
  approval_policy: 'ask' as ApprovalPolicy,
  max_steps: 100,
  allowed_roots: [] as string[],
  network: false,
  hidden_paths: [] as string[],
  visible_paths: [] as string[],
  snapshots: {
    enabled: true,
    max_file_bytes: 10 * 1024 * 1024,
    keep_runs: 100,
    max_total_bytes: 2 * 1024 * 1024 * 1024,
  },
}

/** The `tools.snapshots` object as stored, each missing field at its default. */
function snapshotsOf(stored: unknown): typeof TOOL_DEFAULTS.snapshots {
  const s = isObject(stored) ? stored : {}
  const d = TOOL_DEFAULTS.snapshots
  const num = (k: 'max_file_bytes' | 'keep_runs' | 'max_total_bytes') =>
    typeof s[k] === 'number' ? (s[k] as number) : d[k]
  return {
    enabled: typeof s.enabled === 'boolean' ? s.enabled : d.enabled,
    max_file_bytes: num('max_file_bytes'),
    keep_runs: num('keep_runs'),
    max_total_bytes: num('max_total_bytes'),
  }
}

export const tools = plain('tools', (s) => ({
  approval_policy: APPROVAL_POLICIES.includes(s.approval_policy as ApprovalPolicy)
    ? (s.approval_policy as ApprovalPolicy)
    : TOOL_DEFAULTS.approval_policy,
  max_steps: typeof s.max_steps === 'number' ? s.max_steps : TOOL_DEFAULTS.max_steps,
  allowed_roots: Array.isArray(s.allowed_roots) ? (s.allowed_roots as string[]) : TOOL_DEFAULTS.allowed_roots,
  network: typeof s.network === 'boolean' ? s.network : TOOL_DEFAULTS.network,
  hidden_paths: Array.isArray(s.hidden_paths) ? (s.hidden_paths as string[]) : TOOL_DEFAULTS.hidden_paths,
  visible_paths: Array.isArray(s.visible_paths) ? (s.visible_paths as string[]) : TOOL_DEFAULTS.visible_paths,
  snapshots: snapshotsOf(s.snapshots),
}))

/** The `tools` group as runs consume it. */
export function toolsSettings(files: FileContents): typeof TOOL_DEFAULTS {
  return tools.read(files) as typeof TOOL_DEFAULTS
}

/** The public `models` group as the catalogue and cache-policy views consume it. */
export function modelsSettings(files: FileContents): {
  catalogue_url: string
  overrides: Record<string, Record<string, unknown>>
  cache_rules: unknown[]
} {
  return models.read(files) as never
}

export const COMPACTION_DEFAULTS = {
  auto: true,
  threshold_percent: 90,
  strategy: 'summarize' as CompactionStrategyName,
  keep_turns: 2,
}

export const compaction = plain('compaction', (s) => ({
  auto: typeof s.auto === 'boolean' ? s.auto : COMPACTION_DEFAULTS.auto,
  threshold_percent:
    typeof s.threshold_percent === 'number' ? s.threshold_percent : COMPACTION_DEFAULTS.threshold_percent,
  strategy: COMPACTION_STRATEGIES.includes(s.strategy as CompactionStrategyName)
    ? (s.strategy as CompactionStrategyName)
    : COMPACTION_DEFAULTS.strategy,
  keep_turns: typeof s.keep_turns === 'number' ? s.keep_turns : COMPACTION_DEFAULTS.keep_turns,
}))

/** The `compaction` group as runs and the compaction route consume it. */
export function compactionSettings(files: FileContents): typeof COMPACTION_DEFAULTS {
  return compaction.read(files) as typeof COMPACTION_DEFAULTS
}

export const INSTRUCTIONS_DEFAULTS = {
  replace: null as string | null,
  append: null as string | null,
  environment: true,
}

export const instructions = plain('instructions', (s) => ({
  replace: typeof s.replace === 'string' ? s.replace : INSTRUCTIONS_DEFAULTS.replace,
  append: typeof s.append === 'string' ? s.append : INSTRUCTIONS_DEFAULTS.append,
  environment: typeof s.environment === 'boolean' ? s.environment : INSTRUCTIONS_DEFAULTS.environment,
}))

/** The `instructions` group as runs and the context reads consume it. */
export function instructionsSettings(files: FileContents): typeof INSTRUCTIONS_DEFAULTS {
  return instructions.read(files) as typeof INSTRUCTIONS_DEFAULTS
}
