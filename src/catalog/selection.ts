// A session's effective selection and what its composition depends on. The effective
// selection is each candidate's default (settings, discovery) with the session's entries
// over it, as the catalog shows per candidate; entries naming nothing found now are kept as
// given (a skill folder that comes back is off again). The dependencies are the extensions
// the session's profile needs (its own and what that requires, transitively) and the MCP
// servers it loads, each with its state now, so a client sees why a run would be refused
// or run without a server before sending it.
import type { CatalogCandidate } from '../schemas/catalog.ts'
import type { SelectionMaps } from '../sessions/types.ts'
import { REQUIRES } from '../settings/groups/extensions.ts'
import { type CatalogSources, type SessionSide, sectionOf } from './candidates.ts'

const SELECTABLE = ['extensions', 'skills', 'instructions', 'mcp'] as const

type Sections = Record<(typeof SELECTABLE)[number], CatalogCandidate[]>

/** The four selectable sections, each found once. */
export function selectableSections(src: CatalogSources, side: SessionSide): Sections {
  return Object.fromEntries(SELECTABLE.map((k) => [k, sectionOf(src, side, k)])) as Sections
}

export function effectiveSelection(sections: Sections, side: SessionSide): SelectionMaps {
  const out: SelectionMaps = { extensions: {}, skills: {}, instructions: {}, mcp: {} }
  for (const kind of SELECTABLE) {
    for (const c of sections[kind]) {
      if ('selection' in c) out[kind][c.selection.key] = c.selection.effective
    }
    for (const [key, value] of Object.entries(side.overrides[kind])) {
      if (!(key in out[kind])) out[kind][key] = value
    }
  }
  return out
}

export interface Dependency {
  kind: 'extension' | 'mcp'
  name: string
  /** Why the session depends on it. */
  reason: string
  /** `ok`: usable; `off`: the session's selection turns it off; `disabled`: settings do; `unknown`: no such extension. */
  state: 'ok' | 'off' | 'disabled' | 'unknown'
}

function extensionState(c: CatalogCandidate | undefined): Dependency['state'] {
  if (c?.kind !== 'extensions') return 'unknown'
  if (!c.enabled) return 'disabled'
  return c.selection.effective ? 'ok' : 'off'
}

/** Keyed `extension:<name>` and `mcp:<name>` (the keys of composition.availability). */
export function dependenciesOf(
  sections: Sections,
  profile: { name: string; extension: string } | null,
): Record<string, Dependency> {
  const out: Record<string, Dependency> = {}
  if (profile) {
    const extensions = new Map(sections.extensions.map((c) => [c.name, c]))
    const visit = (name: string, reason: string) => {
      if (out[`extension:${name}`]) return
      out[`extension:${name}`] = {
        kind: 'extension',
        name,
        reason,
        state: extensionState(extensions.get(name)),
      }
      for (const r of REQUIRES[name as keyof typeof REQUIRES] ?? []) visit(r, `required by ${name}`)
    }
    visit(profile.extension, `provider profile ${profile.name}`)
  }
  for (const c of sections.mcp) {
    if (c.kind !== 'mcp' || !c.selection.effective) continue
    out[`mcp:${c.name}`] = {
      kind: 'mcp',
      name: c.name,
      reason: c.selection.override === true ? 'selected for this session' : 'enabled in settings',
      state: c.transport === 'invalid' ? 'unknown' : 'ok',
    }
  }
  return out
}
