// Commands and skills in the chat clients (line mode and the terminal client), read from
// GET /sessions/{id}/catalog: `/commands` and `/skills` list them, `/NAME ARGS` sends the
// template NAME with `$ARGUMENTS` replaced by ARGS. The templates come from the daemon, so
// a client never reads the workspace's files itself (docs/catalog.md).
import type { CatalogCandidate, CatalogKind } from '../schemas/catalog.ts'
import type { HearthClient } from './client.ts'

export type CommandCandidate = Extract<CatalogCandidate, { kind: 'commands' }>
export type SkillCandidate = Extract<CatalogCandidate, { kind: 'skills' }>

/** Pages read at most for one section (200 candidates a page). */
const MAX_PAGES = 50

/** Every candidate of one section of the session's catalog, following the continuations. */
export async function catalogSection<K extends CatalogKind>(
  client: HearthClient,
  sessionId: string,
  kind: K,
): Promise<Extract<CatalogCandidate, { kind: K }>[]> {
  const out: CatalogCandidate[] = []
  let next: string | undefined
  for (let page = 0; page < MAX_PAGES; page++) {
    const { body } = await client.call('sessions.catalog', {
      params: { session_id: sessionId },
      query: { kind, limit: 200, ...(next ? { next } : {}) },
    })
    out.push(...body.items)
    if (!body.next) break
    next = body.next
  }
  return out.filter((c): c is Extract<CatalogCandidate, { kind: K }> => c.kind === kind)
}

export const readCommands = (client: HearthClient, sessionId: string) =>
  catalogSection(client, sessionId, 'commands')
export const readSkills = (client: HearthClient, sessionId: string) =>
  catalogSection(client, sessionId, 'skills')

/** The template with `$ARGUMENTS` replaced by `args` (appended after a blank line when absent). */
export function expandTemplate(template: string, args: string): string {
  const text = template.trimEnd()
  if (text.includes('$ARGUMENTS')) return text.replaceAll('$ARGUMENTS', args)
  return args === '' ? text : `${text}\n\n${args}`
}

/** `/NAME ARGS` split, or undefined when the line is not of that form. */
export function parseSlash(line: string): { name: string; args: string } | undefined {
  const m = /^\/([^\s/]+)(?:\s+([\s\S]*))?$/.exec(line.trim())
  return m ? { name: m[1], args: (m[2] ?? '').trim() } : undefined
}

/** The message a `/NAME ARGS` line sends when NAME is one of the commands; else undefined. */
export function templateMessage(commands: readonly CommandCandidate[], line: string): string | undefined {
  const slash = parseSlash(line)
  const command = slash && commands.find((c) => c.name === slash.name)
  return command ? expandTemplate(command.template, slash.args) : undefined
}

/** Rows of text in aligned columns (the last column is not padded). */
function columns(head: string[], rows: string[][]): string {
  const all = [head, ...rows]
  const widths = head.map((_, i) => Math.max(...all.map((r) => r[i].length)))
  return all
    .map((r) =>
      r
        .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}

export function commandsText(commands: readonly CommandCandidate[]): string {
  if (commands.length === 0)
    return "(no commands: add Markdown files to .hearth/commands/ or the home's commands/)"
  return columns(
    ['COMMAND', 'SOURCE', 'DESCRIPTION'],
    commands.map((c) => [
      `/${c.name}${c.argument_hint ? ` ${c.argument_hint}` : ''}`,
      c.source,
      c.description ?? '',
    ]),
  )
}

export function skillsText(skills: readonly SkillCandidate[]): string {
  if (skills.length === 0) return "(no skills: add SKILL.md folders to .hearth/skills/ or the home's skills/)"
  return columns(
    ['SKILL', 'SOURCE', 'STATE', 'DESCRIPTION'],
    skills.map((s) => [s.name, s.source, s.selection.effective ? 'on' : 'off', s.description ?? '']),
  )
}
