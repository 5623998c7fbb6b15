// Command templates in the terminal client: the session's `commands` from its catalog
// (src/client/catalog.ts), offered by the editor's completion beside the client's own
// commands, and sent by `/NAME ARGS` as the expanded template. The list is read again when
// another session opens, at `/commands`, and before a `/NAME` line is sent, so an edited
// template is what goes.
import { type CommandCandidate, parseSlash, readCommands, templateMessage } from '../client/catalog.ts'
import type { HearthClient } from '../client/client.ts'
import { COMMANDS, type CommandContext, parseCommand } from './commands.ts'
import { type AutocompleteProvider, CombinedAutocompleteProvider } from './pi.ts'
import type { SessionLink } from './session-link.ts'

type CompletionItem = NonNullable<ConstructorParameters<typeof CombinedAutocompleteProvider>[0]>[number]

/** The client's own commands as completion items, with their argument values. */
export function builtinCompletions(): CompletionItem[] {
  return COMMANDS.map((c) => ({
    name: c.name,
    description: c.description,
    argumentHint: c.argumentHint,
    getArgumentCompletions: c.values
      ? (prefix: string) => c.values!.filter((v) => v.startsWith(prefix)).map((v) => ({ value: v, label: v }))
      : undefined,
  }))
}

/** The editor's completion: the client's own commands and `items`, paths under `workspace`. */
function completionOf(items: CompletionItem[], workspace: string): CombinedAutocompleteProvider {
  return new CombinedAutocompleteProvider([...builtinCompletions(), ...items], workspace)
}

/**
 * The editor's completion, whose items can change under it. Handing the editor a new
 * provider would close a list the person is looking at (pi-tui cancels it), so template
 * names that arrive while someone types join the next suggestion instead.
 */
export class LiveCompletion implements AutocompleteProvider {
  readonly #workspace: string
  #current: CombinedAutocompleteProvider

  constructor(workspace: string) {
    this.#workspace = workspace
    this.#current = completionOf([], workspace)
  }

  set(items: CompletionItem[]): void {
    this.#current = completionOf(items, this.#workspace)
  }

  getSuggestions(...args: Parameters<AutocompleteProvider['getSuggestions']>) {
    return this.#current.getSuggestions(...args)
  }

  /**
   * Applies a completion unless the list is stale: pi-tui asks for suggestions
   * asynchronously, so keys typed in one burst (`/`, then `help⏎`) reach Enter while the
   * list still holds the suggestions for an older prefix. The text then stays as typed.
   */
  applyCompletion(...args: Parameters<AutocompleteProvider['applyCompletion']>) {
    const [lines, cursorLine, cursorCol, , prefix] = args
    const beforeCursor = (lines[cursorLine] ?? '').slice(0, cursorCol)
    if (!beforeCursor.endsWith(prefix)) return { lines, cursorLine, cursorCol }
    return this.#current.applyCompletion(...args)
  }

  /** Whether `text` is a command whose argument is already one of its values (Enter runs it). */
  completeArgument(text: string): boolean {
    const cmd = parseCommand(text)
    const values = cmd?.command?.values
    return values !== undefined && cmd !== undefined && cmd.args !== '' && values.includes(cmd.args)
  }

  shouldTriggerFileCompletion(lines: string[], cursorLine: number, cursorCol: number): boolean {
    return this.#current.shouldTriggerFileCompletion(lines, cursorLine, cursorCol)
  }
}

export class Templates {
  /** Installs a completion provider holding these template items. */
  readonly #install: (items: CompletionItem[]) => void
  #list: CommandCandidate[] = []

  constructor(install: (items: CompletionItem[]) => void) {
    this.#install = install
  }

  get list(): readonly CommandCandidate[] {
    return this.#list
  }

  /** Takes a fresh list: completion offers its names (the client's own commands win). */
  set(list: CommandCandidate[]): void {
    this.#list = list
    const own = new Set(COMMANDS.map((c) => c.name))
    this.#install(
      list
        .filter((c) => !own.has(c.name))
        .map((c) => ({
          name: c.name,
          description: c.description ?? 'command template',
          argumentHint: c.argument_hint ?? undefined,
        })),
    )
  }

  async refresh(client: HearthClient, sessionId: string): Promise<CommandCandidate[]> {
    const list = await readCommands(client, sessionId)
    this.set(list)
    return list
  }

  /** Sends a `/NAME ARGS` line as the template NAME expanded, or says why not. */
  send(link: SessionLink, text: string, say: CommandContext['say']): void {
    const name = parseSlash(text)?.name
    // A new session not created yet is created now: its catalog holds the templates.
    link
      .ensure()
      .then((id) => this.messageOf(link.client(), id, text))
      .then((message) => {
        if (message !== undefined) return link.send(message)
        say(`unknown command /${name}; /help and /commands list them`, 'warn')
      })
      .catch((err: Error) => say(`/${name}: ${err?.message ?? String(err)}`, 'error'))
  }

  /**
   * The message a `/NAME ARGS` line sends, read with a fresh list; undefined when the line
   * names no template (`line` must look like `/NAME …`).
   */
  async messageOf(client: HearthClient, sessionId: string, line: string): Promise<string | undefined> {
    if (!parseSlash(line)) return undefined
    return templateMessage(await this.refresh(client, sessionId), line)
  }
}
