// The candidates of a session's composition, by section: the extensions hearth knows, the
// skills and instruction files found for its workspace, the MCP servers of settings group
// `mcp`, and the command templates. Each carries a revision (a hash of what was discovered,
// the session's selection left out) and, but for commands, its selection state. Everything
// is read from disk and settings as they are now; nothing is loaded or started.
import { createHash } from 'node:crypto'
import { isOn } from '../instructions/compose.ts'
import type { Instructions } from '../instructions/index.ts'
import { hasTransport, PROVIDERS } from '../providers/registry.ts'
import type { CatalogCandidate, CatalogKind } from '../schemas/catalog.ts'
import { EXTENSIONS, PROVIDER_EXTENSIONS } from '../schemas/extensions.ts'
import type { SelectionMaps } from '../sessions/types.ts'
import type { FileContents } from '../settings/files.ts'
import { enabledExtensions, REQUIRES } from '../settings/groups/extensions.ts'
import { isObject, objectAt } from '../settings/merge.ts'
import type { Commands } from '../skills/commands.ts'

/** Characters of a command template a candidate carries. */
export const MAX_TEMPLATE_CHARS = 16_384

/** What each extension is; a provider's says its descriptor (src/providers/<id>/). */
const DESCRIPTIONS: Record<string, string> = {
  models: 'Model metadata: the catalogue the pickers read',
  ...Object.fromEntries(PROVIDERS.map((p) => [p.id, p.extension.description])),
  work: 'Work items',
  paperclips: 'Paperclip items',
}

export interface CatalogSources {
  /** The settings files as they are now (config.json, creds.json, extensions.json). */
  files: () => FileContents
  instructions: Instructions
  commands: Commands
}

export interface SessionSide {
  workspace: string
  overrides: SelectionMaps
}

type Without<T> = T extends unknown ? Omit<T, 'revision'> : never

export function hashOf(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('base64url').slice(0, 22)
}

/**
 * The revision covers what was discovered (and `hidden`: content not shown, such as a
 * skill's body); what follows from the session's selection (`selection`, an instruction
 * file's `state`, whose `reason` keeps why one is skipped) is left out, so a selection
 * change keeps revisions.
 */
function withRevision(c: Without<CatalogCandidate>, hidden: unknown = null): CatalogCandidate {
  const {
    selection: _,
    state: __,
    ...found
  } = c as Without<CatalogCandidate> & { selection?: unknown; state?: unknown }
  return { ...c, revision: hashOf([found, hidden]) } as CatalogCandidate
}

function selectionState(key: string, dflt: boolean, override: boolean | undefined) {
  return { key, default: dflt, override: override ?? null, effective: override ?? dflt }
}

function extensions(src: CatalogSources, s: SessionSide): CatalogCandidate[] {
  const enabled = enabledExtensions(src.files())
  return EXTENSIONS.map((name) =>
    withRevision({
      kind: 'extensions',
      name,
      description: DESCRIPTIONS[name] ?? null,
      source: 'builtin',
      provider: (PROVIDER_EXTENSIONS as readonly string[]).includes(name),
      // `models` is built in; a provider extension runs when hearth has its transport.
      implemented: name === 'models' || hasTransport(name),
      enabled: enabled.has(name),
      requires: [...REQUIRES[name]],
      // A session can turn an extension off, never on: one settings disable has nothing loaded.
      selection: {
        ...selectionState(name, enabled.has(name), s.overrides.extensions[name]),
        effective: enabled.has(name) && s.overrides.extensions[name] !== false,
      },
    }),
  )
}

const sourceOf = (scope: 'workspace' | 'global') => (scope === 'global' ? 'home' : 'workspace')

function skills(src: CatalogSources, s: SessionSide): CatalogCandidate[] {
  return src.instructions.skills.find(s.workspace).skills.map((k) =>
    withRevision(
      {
        kind: 'skills',
        name: k.name,
        description: k.description,
        source: sourceOf(k.scope),
        path: k.path,
        truncated: k.truncated,
        selection: selectionState(k.name, true, s.overrides.skills[k.name]),
      },
      k.body,
    ),
  )
}

function instructions(src: CatalogSources, s: SessionSide): CatalogCandidate[] {
  return src.instructions.files.find(s.workspace).map((f) => {
    const on = isOn(f, s.overrides.instructions)
    return withRevision(
      {
        kind: 'instructions',
        name: f.path.split('/').slice(-2).join('/'),
        description: null,
        source: sourceOf(f.scope),
        path: f.path,
        bytes: f.bytes,
        state: f.skipped ? 'skipped' : on ? 'loaded' : 'off',
        reason: f.skipped,
        selection: {
          key: f.path,
          default: true,
          override: s.overrides.instructions[f.path] ?? null,
          effective: on,
        },
      },
      f.text,
    )
  })
}

/** The URL without user info, query or fragment (where a token may hide). */
function safeUrl(raw: string): string | null {
  try {
    const u = new URL(raw)
    return `${u.protocol}//${u.host}${u.pathname}`
  } catch {
    return null
  }
}

function mcp(src: CatalogSources, s: SessionSide): CatalogCandidate[] {
  const files = src.files()
  const servers = objectAt(objectAt(files['config.json'], 'mcp'), 'servers')
  const creds = objectAt(files['creds.json'], 'mcp')
  return Object.entries(servers)
    .filter(([, v]) => isObject(v))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, v]) => {
      const server = v as Record<string, unknown>
      const secret = objectAt(creds, name)
      const enabled = server.enabled !== false
      const transport =
        typeof server.command === 'string' ? 'stdio' : typeof server.url === 'string' ? 'http' : 'invalid'
      return withRevision(
        {
          kind: 'mcp',
          name,
          description: typeof server.description === 'string' ? server.description : null,
          source: 'settings',
          transport,
          command: transport === 'stdio' ? (server.command as string) : null,
          url: transport === 'http' ? safeUrl(server.url as string) : null,
          enabled,
          secrets: (['bearerToken', 'headers', 'env'] as const).filter((k) => secret[k] !== undefined),
          selection: selectionState(name, enabled, s.overrides.mcp[name]),
        },
        // The whole public entry counts (arguments and all), never the secrets.
        server,
      )
    })
}

/** The first `n` UTF-16 units, never ending inside a surrogate pair. */
function cutAt(text: string, n: number): string {
  const end = /[\uD800-\uDBFF]/.test(text[n - 1]) ? n - 1 : n
  return text.slice(0, end)
}

function commands(src: CatalogSources, s: SessionSide): CatalogCandidate[] {
  return src.commands.find(s.workspace).commands.map((c) => {
    const cut = c.template.length > MAX_TEMPLATE_CHARS
    return withRevision(
      {
        kind: 'commands',
        name: c.name,
        description: c.description,
        source: sourceOf(c.scope),
        path: c.path,
        argument_hint: c.argument_hint,
        template: cut ? cutAt(c.template, MAX_TEMPLATE_CHARS) : c.template,
        template_truncated: cut || c.truncated,
      },
      c.template,
    )
  })
}

const SECTIONS: Record<CatalogKind, (src: CatalogSources, s: SessionSide) => CatalogCandidate[]> = {
  extensions,
  skills,
  instructions,
  mcp,
  commands,
}

/** One section's candidates, in their order (discovery order; mcp by name). */
export function sectionOf(src: CatalogSources, s: SessionSide, kind: CatalogKind): CatalogCandidate[] {
  return SECTIONS[kind](src, s)
}

export function sectionRevision(items: readonly CatalogCandidate[]): string {
  return hashOf(items.map((c) => c.revision))
}

/** What of a session the catalog reads: its workspace and its selection entries. */
export function sessionSide(row: { workspace: string; selection: string }): SessionSide {
  return { workspace: row.workspace, overrides: JSON.parse(row.selection) as SelectionMaps }
}
