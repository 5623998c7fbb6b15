// The models a Claude subscription profile offers: six fixed families (the Claude Code line
// a Pro/Max plan serves), each listed only when the catalogue in use has a model of it, so a
// refreshed catalogue (`hearth models refresh`) adds a family the moment it lists one. Every id of a listed family is offered (the dated ids and any alias).
import { parseModel } from '../anthropic-messages/models.ts'

/** Family and version of the six. */
export const CLAUDE_FAMILIES: readonly { family: string; version: number }[] = [
  { family: 'opus', version: 4.6 },
  { family: 'sonnet', version: 4.6 },
  { family: 'opus', version: 4.5 },
  { family: 'sonnet', version: 4.5 },
  { family: 'haiku', version: 4.5 },
  { family: 'opus', version: 4.1 },
]

/** Whether a model id belongs to one of the six families. */
export function isClaudeFamilyModel(id: string): boolean {
  const m = parseModel(id)
  return m !== null && CLAUDE_FAMILIES.some((f) => f.family === m.family && f.version === m.version)
}
