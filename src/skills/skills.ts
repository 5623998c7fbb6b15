// Skills: folders holding a SKILL.md whose front matter names the skill and says when to use
// it. A step's system text lists every skill's name and description (a few hundred bytes
// each); the model calls the `skill` tool with a name to get the instructions themselves.
// Workspace skills (`.hearth/skills/`) win over the home's (`skills/`) of the same name.
// docs/skills.md gives the reasons.
import { dirname } from 'node:path'
import { RootFiles, rootsOf, type Scope } from './files.ts'
import { splitFrontMatter } from './front-matter.ts'

export const SKILL_FILE = 'SKILL.md'
/** Bytes of a SKILL.md read; the rest of the body is cut (and the cut is said). */
export const MAX_SKILL_BYTES = 64 * 1024
export const MAX_NAME_CHARS = 64
export const MAX_DESCRIPTION_CHARS = 1024
/** Bytes of the listing a step's system text carries; skills past it are left out. */
export const MAX_LISTING_BYTES = 16 * 1024

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/

export interface Skill {
  name: string
  description: string
  scope: Scope
  /** The SKILL.md as found. */
  path: string
  /** The instructions after the front matter. */
  body: string
  truncated: boolean
}

export interface SkippedSkill {
  path: string
  scope: Scope
  reason: string
}

export interface FoundSkills {
  skills: Skill[]
  skipped: SkippedSkill[]
}

export class Skills {
  readonly #home: string | null
  readonly #files = new RootFiles()

  /** `home`: hearth's home, whose `skills/` holds the user's own skills (null: none). */
  constructor(home: string | null) {
    this.#home = home
  }

  find(workspace: string): FoundSkills {
    const skills: Skill[] = []
    const skipped: SkippedSkill[] = []
    const names = new Set<string>()
    for (const root of rootsOf('skills', workspace, this.#home)) {
      const found = this.#files.list(
        root.dir,
        root.base,
        root.scope,
        (e) => `${e}/${SKILL_FILE}`,
        MAX_SKILL_BYTES,
      )
      for (const f of found) {
        const skip = (reason: string) => skipped.push({ path: f.path, scope: f.scope, reason })
        if (f.text === null) {
          if (f.reason) skip(f.reason)
          continue
        }
        const s = toSkill(f.text, f.path, f.scope, f.truncated)
        if (typeof s === 'string') skip(s)
        else if (names.has(s.name)) skip(`another skill named ${s.name} comes first`)
        else {
          names.add(s.name)
          skills.push(s)
        }
      }
    }
    return { skills, skipped }
  }
}

function toSkill(text: string, path: string, scope: Scope, truncated: boolean): Skill | string {
  const fm = splitFrontMatter(text)
  if (!fm.ok) return fm.reason
  const { name, description } = fm.data
  if (typeof name !== 'string' || name === '') return 'the front matter has no `name`'
  if (name.length > MAX_NAME_CHARS || !NAME.test(name))
    return `the name ${JSON.stringify(name.slice(0, 80))} is not letters, digits, ".", "_" and "-" (at most ${MAX_NAME_CHARS})`
  if (typeof description !== 'string' || description.trim() === '')
    return 'the front matter has no `description`'
  const oneLine = description.replace(/\s+/g, ' ').trim()
  return {
    name,
    description:
      oneLine.length > MAX_DESCRIPTION_CHARS ? `${oneLine.slice(0, MAX_DESCRIPTION_CHARS)}…` : oneLine,
    scope,
    path,
    body: fm.body,
    truncated,
  }
}

/** The system text section listing the skills, or null when there are none. */
export function skillsListing(skills: Skill[]): string | null {
  if (skills.length === 0) return null
  const lines: string[] = []
  let bytes = 0
  for (const s of skills) {
    const line = `- ${s.name}: ${s.description}`
    bytes += Buffer.byteLength(line) + 1
    if (bytes > MAX_LISTING_BYTES) {
      lines.push(`(${skills.length - lines.length} more skills are not listed: the listing is full)`)
      break
    }
    lines.push(line)
  }
  return [
    '<skills>',
    'Skills are instructions for particular tasks. When a task matches a skill below, call the ' +
      '`skill` tool with its name first and follow what it returns.',
    ...lines,
    '</skills>',
  ].join('\n')
}

/** What the `skill` tool returns for a skill: its folder, then its instructions. */
export function skillText(s: Skill): string {
  const cut = s.truncated
    ? `\n[cut here: only the first ${MAX_SKILL_BYTES} bytes of ${SKILL_FILE} are shown]\n`
    : ''
  return `<skill name=${JSON.stringify(s.name)} dir=${JSON.stringify(dirname(s.path))}>\n${s.body}${cut}\n</skill>`
}
