// `skill`: the instructions of one of the skills the system text lists (src/skills). The
// skills are found afresh at each call, with the same rules as the listing: a SKILL.md must
// really lie inside the workspace (or hearth's home, for the user's own skills), so a skill
// folder that is a symlink to somewhere else is refused here as the read tool would refuse it.
import { type Static, Type } from 'typebox'
import { Skills, skillText } from '../skills/skills.ts'
import { hearthHomePath } from './confine.ts'
import { argsError, fail, ok } from './files/common.ts'
import type { ToolContext, ToolResult, ToolSpec } from './types.ts'

const SkillArgs = Type.Object(
  { name: Type.String({ description: 'The name of the skill, as the list of skills gives it.' }) },
  { additionalProperties: false },
)
type SkillArgs = Static<typeof SkillArgs>

let finder: { home: string | null; skills: Skills } | undefined

/** One finder per home (its identity cache saves rereading unchanged files). */
function skillsOf(home: string | null): Skills {
  if (finder?.home !== home) finder = { home, skills: new Skills(home) }
  return finder.skills
}

export const skillTool: ToolSpec<SkillArgs> = {
  name: 'skill',
  description:
    'Get the instructions of a skill: call it with a name from the list of skills in the system ' +
    'text when the task at hand matches that skill, then follow what it returns. The result names ' +
    "the skill's folder, where files the instructions mention lie.",
  parameters: SkillArgs,
  effect: 'read',
  summarize: (args) => `skill ${args.name}`,
  run: runSkill,
}

async function runSkill(args: SkillArgs, ctx: ToolContext): Promise<ToolResult> {
  const bad = argsError(SkillArgs, args)
  if (bad) return fail(bad)
  const off = new Set(ctx.skillsOff ?? [])
  if (off.has(args.name)) return fail(`${args.name}: this skill is turned off for this session.`)
  const found = skillsOf(hearthHomePath()).find(ctx.workspace)
  found.skills = found.skills.filter((s) => !off.has(s.name))
  const skill = found.skills.find((s) => s.name === args.name)
  if (skill) return ok(skillText(skill), { skill: skill.name, scope: skill.scope, path: skill.path })
  const refused = found.skipped.find((s) => s.path.split('/').at(-2) === args.name)
  if (refused) return fail(`${args.name}: this skill is not used: ${refused.path} ${refused.reason}.`)
  const names = found.skills.map((s) => s.name)
  return fail(
    `${args.name}: no such skill. ${names.length ? `The skills are: ${names.join(', ')}.` : 'There are no skills.'}`,
  )
}
