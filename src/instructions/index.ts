// The instructions of a session's turns: AGENTS.md files found for its workspace, composed
// with its selection into the system text a turn sends and the list a session read shows,
// followed by the list of skills the `skill` tool gives (src/skills).
import { type FoundSkills, Skills, skillsListing } from '../skills/skills.ts'
import { type Composed, compose } from './compose.ts'
import { InstructionFiles } from './files.ts'

export type { Composed, InstructionSource } from './compose.ts'

export class Instructions {
  readonly files: InstructionFiles
  readonly skills: Skills

  /** `home`: hearth's home, where the user's global AGENTS.md and skills live (null: none). */
  constructor(home: string | null) {
    this.files = new InstructionFiles(home)
    this.skills = new Skills(home)
  }

  /**
   * What a turn in `workspace` sends now, with the session's selection: its `instructions`
   * entries turn files off, its `skills` entries (false) leave skills out of the listing.
   */
  of(
    workspace: string,
    selection: { instructions: Record<string, boolean>; skills?: Record<string, boolean> },
  ): Composed & { skills: FoundSkills } {
    const composed = compose(this.files.find(workspace), selection.instructions)
    const skills = this.skills.find(workspace)
    const listing = skillsListing(skills.skills.filter((s) => selection.skills?.[s.name] !== false))
    const parts = [composed.system, listing].filter((p): p is string => p !== null)
    return { ...composed, system: parts.length ? parts.join('\n\n') : null, skills }
  }
}
