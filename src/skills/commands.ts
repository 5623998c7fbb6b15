// Commands: prompt templates a person sends by name (`/review src/a.ts` in `hearth chat`),
// found here for the session's catalog (src/catalog/); clients expand them (src/client/catalog.ts).
// Each is a Markdown file in the workspace's `.hearth/commands/` or hearth's home
// `commands/`, named by its file name without `.md`; optional front matter gives a
// `description` and an `argument-hint`. `$ARGUMENTS` in the body is replaced by what follows
// the name. Workspace commands win over the home's of the same name. docs/skills.md.

import { RootFiles, rootsOf, type Scope } from './files.ts'
import { splitFrontMatter } from './front-matter.ts'

/** Bytes of a command file read; a longer template is cut (and marked `truncated`). */
export const MAX_COMMAND_BYTES = 32 * 1024

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

export interface Command {
  name: string
  description: string | null
  argument_hint: string | null
  scope: Scope
  path: string
  template: string
  truncated: boolean
}

export interface FoundCommands {
  commands: Command[]
  skipped: { path: string; scope: Scope; reason: string }[]
}

export class Commands {
  readonly #home: string | null
  readonly #files = new RootFiles()

  constructor(home: string | null) {
    this.#home = home
  }

  find(workspace: string): FoundCommands {
    const commands: Command[] = []
    const skipped: FoundCommands['skipped'] = []
    const names = new Set<string>()
    for (const root of rootsOf('commands', workspace, this.#home)) {
      const pick = (e: string) => (e.endsWith('.md') ? e : null)
      for (const f of this.#files.list(root.dir, root.base, root.scope, pick, MAX_COMMAND_BYTES)) {
        const skip = (reason: string) => skipped.push({ path: f.path, scope: f.scope, reason })
        const name = f.entry.slice(0, -'.md'.length)
        if (!NAME.test(name)) {
          skip('the file name is not letters, digits, ".", "_" and "-" (at most 64)')
          continue
        }
        if (f.text === null) {
          if (f.reason) skip(f.reason)
          continue
        }
        if (names.has(name)) continue // the workspace's command of this name wins
        const fm = splitFrontMatter(f.text)
        if (!fm.ok) {
          skip(fm.reason)
          continue
        }
        const text = (k: string) => (typeof fm.data[k] === 'string' ? (fm.data[k] as string) : null)
        names.add(name)
        commands.push({
          name,
          description: text('description'),
          argument_hint: text('argument-hint'),
          scope: f.scope,
          path: f.path,
          template: fm.body,
          truncated: f.truncated,
        })
      }
    }
    return { commands, skipped }
  }
}
