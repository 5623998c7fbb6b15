// Slash commands: the session's command templates and its skills, offered to the editor as
// `available_commands_update` (after session/new, load and resume). A prompt that starts with
// `/NAME` naming a command is sent as the expanded template, as `hearth chat` does
// (src/client/catalog.ts); one naming a skill asks the model to use that skill (the `skill`
// tool then reads it in the daemon). Anything else is sent as typed.
import type { AvailableCommand, SessionUpdate } from '@agentclientprotocol/sdk'
import {
  type CommandCandidate,
  parseSlash,
  readCommands,
  readSkills,
  type SkillCandidate,
  templateMessage,
} from '../client/catalog.ts'
import type { HearthClient } from '../client/client.ts'
import type { AcpContext } from './context.ts'

/** A command template wins over a skill of the same name, as in the workspace's own tools. */
export function availableCommands(
  commands: readonly CommandCandidate[],
  skills: readonly SkillCandidate[],
): AvailableCommand[] {
  const taken = new Set(commands.map((c) => c.name))
  return [
    ...commands.map((c) => ({
      name: c.name,
      description: c.description ?? `Sends the ${c.source} command ${c.name}`,
      input: c.argument_hint ? { hint: c.argument_hint } : null,
    })),
    ...skills
      .filter((s) => s.selection.effective && !taken.has(s.name))
      .map((s) => ({
        name: s.name,
        description: `Skill: ${s.description ?? s.name}`,
        input: { hint: 'what to do with it (optional)' },
      })),
  ]
}

async function catalogOf(client: HearthClient, sessionId: string) {
  const [commands, skills] = await Promise.all([
    readCommands(client, sessionId),
    readSkills(client, sessionId),
  ])
  return { commands, skills }
}

/** The session's commands and skills as the editor is told them. */
export async function commandsUpdate(client: HearthClient, sessionId: string): Promise<SessionUpdate> {
  const { commands, skills } = await catalogOf(client, sessionId)
  return {
    sessionUpdate: 'available_commands_update',
    availableCommands: availableCommands(commands, skills),
  }
}

/** Sends the session's commands and skills to the editor (a failed read is logged, not fatal). */
export async function sendAvailableCommands(ctx: AcpContext, sessionId: string): Promise<void> {
  try {
    await ctx.live.send(sessionId, [await commandsUpdate(ctx.client, sessionId)])
  } catch (err) {
    ctx.log(`hearth acp: the commands of session ${sessionId} could not be read: ${(err as Error).message}`)
  }
}

/** The message a skill's slash line sends: the model reads the skill with its `skill` tool. */
export const skillMessage = (name: string, args: string) =>
  `Use the skill \`${name}\` (read it with the skill tool) for this task.${args ? `\n\n${args}` : ''}`

/**
 * The text a prompt's first text sends: the expanded template of a `/NAME ARGS` command, the
 * request to use a skill, or the text itself when it names neither.
 */
export async function expandSlashCommand(
  client: HearthClient,
  sessionId: string,
  text: string,
): Promise<string> {
  const slash = parseSlash(text)
  if (!slash) return text
  const { commands, skills } = await catalogOf(client, sessionId)
  const expanded = templateMessage(commands, text)
  if (expanded !== undefined) return expanded
  const skill = skills.find((s) => s.name === slash.name && s.selection.effective)
  return skill ? skillMessage(skill.name, slash.args) : text
}
