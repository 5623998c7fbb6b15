// The system text of a session's steps, in this order: hearth's own instructions (own.ts, as
// the `instructions` settings replace or extend them), the AGENTS.md files found for its
// workspace (composed with its selection; also the list a session read shows), the list of
// skills the `skill` tool gives (src/skills), and the environment block (environment.ts).
// The parts that stay the same come first, the facts that change last, for prompt caching.
import { INSTRUCTIONS_DEFAULTS } from '../settings/groups/simple.ts'
import { type FoundSkills, Skills, skillsListing } from '../skills/skills.ts'
import { type Composed, compose } from './compose.ts'
import { InstructionFiles } from './files.ts'
import { OWN_INSTRUCTIONS } from './own.ts'

export type { Composed, InstructionSource } from './compose.ts'

/** The `instructions` settings group. */
export type OwnSettings = typeof INSTRUCTIONS_DEFAULTS

/** Characters of each part of the system text (the blank lines between parts not counted). */
export interface SystemParts {
  own: number
  files: number
  skills: number
  environment: number
}

export class Instructions {
  readonly files: InstructionFiles
  readonly skills: Skills
  /** The `instructions` settings as they are now (the defaults where no settings are wired). */
  settings: () => OwnSettings = () => INSTRUCTIONS_DEFAULTS

  /** `home`: hearth's home, where the user's global AGENTS.md and skills live (null: none). */
  constructor(home: string | null) {
    this.files = new InstructionFiles(home)
    this.skills = new Skills(home)
  }

  /**
   * What a step in `workspace` sends now, with the session's selection: its `instructions`
   * entries turn files off, its `skills` entries (false) leave skills out of the listing.
   * `environment`: the environment block of the run (null: none), sent last unless the
   * settings turn it off.
   */
  of(
    workspace: string,
    selection: { instructions: Record<string, boolean>; skills?: Record<string, boolean> },
    environment: string | null = null,
  ): Composed & { skills: FoundSkills; parts: SystemParts } {
    const settings = this.settings()
    const composed = compose(this.files.find(workspace), selection.instructions)
    const skills = this.skills.find(workspace)
    const listing = skillsListing(skills.skills.filter((s) => selection.skills?.[s.name] !== false))
    const own = ownText(settings)
    const env = settings.environment ? environment : null
    const parts = [own, composed.system, listing, env].filter((p): p is string => p !== null && p !== '')
    return {
      ...composed,
      system: parts.length ? parts.join('\n\n') : null,
      skills,
      parts: {
        own: own.length,
        files: composed.system?.length ?? 0,
        skills: listing?.length ?? 0,
        environment: env?.length ?? 0,
      },
    }
  }
}

/** hearth's own instructions, or the settings' replacement, with the settings' addition. */
export function ownText(settings: OwnSettings): string {
  const base = (settings.replace ?? OWN_INSTRUCTIONS).trim()
  const extra = settings.append?.trim() ?? ''
  return [base, extra].filter((t) => t !== '').join('\n\n')
}
