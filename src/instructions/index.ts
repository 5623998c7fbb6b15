// The instructions of a session's turns: AGENTS.md files found for its workspace, composed
// with its selection into the system text a turn sends and the list a session read shows.
import { type Composed, compose } from './compose.ts'
import { InstructionFiles } from './files.ts'

export type { Composed, InstructionSource } from './compose.ts'

export class Instructions {
  readonly files: InstructionFiles

  /** `home`: hearth's home, where the user's global AGENTS.md lives (null: no global file). */
  constructor(home: string | null) {
    this.files = new InstructionFiles(home)
  }

  /** What a turn in `workspace` sends now, with `selection` the session's `selection.instructions`. */
  of(workspace: string, selection: Record<string, boolean>): Composed {
    return compose(this.files.find(workspace), selection)
  }
}
