// The slash commands of the terminal client: one table, which the editor's completion and
// /help read. A command gets the context of the screen it was typed in. Later screens
// add their entries here.
import { commandsText, readSkills, skillsText } from '../client/catalog.ts'
import { compact, readContext } from '../client/context-view.ts'
import { upgradeKernel } from '../client/kernel-view.ts'
import { RELOAD_TARGETS, reload } from '../client/reload-view.ts'
import { SIGN_IN_EXTENSIONS } from '../schemas/extensions.ts'
import type { ChangesMode } from './changes-screen.ts'
import { MCP_LOGIN, mcpProvider, serverToSignIn } from './mcp-sign-in.ts'
import type { SessionLink } from './session-link.ts'
import type { Templates } from './templates.ts'
import { workText } from './work-command.ts'

export interface CommandContext {
  link: SessionLink
  /** Text after the command name, trimmed. */
  args: string
  /** A line in the transcript. */
  say: (text: string, kind?: 'info' | 'warn' | 'error') => void
  quit: () => void
  /** The workspace new sessions are created in. */
  workspace: string
  /** Opens the session picker / the model and profile picker in place of the chat. */
  pickSession: () => void
  pickModel: () => void
  /** The login screen; with a provider, its sign-in starts at once. */
  login: (provider?: string) => void
  quota: () => void
  /** The changes screen: the last run's changed files (/diff), putting them back (/undo), undoing that (/redo). */
  changes: (mode: ChangesMode) => void
  /** The session's command templates (`/commands` lists them and refreshes completion). */
  templates: Templates
}

export interface SlashCommand {
  name: string
  description: string
  argumentHint?: string
  /** Values the argument can take, offered by completion. */
  values?: readonly string[]
  run: (ctx: CommandContext) => Promise<void> | void
}

const APPROVAL_POLICIES = ['read-only', 'ask', 'auto'] as const
type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number]
const isApprovalPolicy = (v: string): v is ApprovalPolicy =>
  (APPROVAL_POLICIES as readonly string[]).includes(v)

export const COMMANDS: SlashCommand[] = [
  {
    name: 'new',
    description: 'start a new session in this workspace',
    run: async (ctx) => {
      ctx.link.startNew(ctx.workspace)
      ctx.say('new session: it starts with your first message')
    },
  },
  {
    name: 'fork',
    description: 'copy this session and continue in the copy',
    run: async (ctx) => {
      const from = ctx.link.id
      const id = await ctx.link.fork()
      ctx.say(`forked ${from} into ${id}`)
    },
  },
  {
    name: 'rename',
    description: 'name this session',
    argumentHint: 'NAME',
    run: async (ctx) => {
      if (!ctx.args) return ctx.say('usage: /rename NAME', 'warn')
      await ctx.link.configure({ name: ctx.args })
      ctx.say(`renamed to ${ctx.args}`)
    },
  },
  {
    name: 'approve',
    description: 'when tools may act: read-only, ask or auto',
    argumentHint: APPROVAL_POLICIES.join('|'),
    values: APPROVAL_POLICIES,
    run: async (ctx) => {
      const policy = ctx.args
      if (!isApprovalPolicy(policy)) return ctx.say(`usage: /approve ${APPROVAL_POLICIES.join('|')}`, 'warn')
      await ctx.link.configure({ approval_policy: policy })
      ctx.say(`approval policy: ${ctx.args}`)
    },
  },
  {
    name: 'sessions',
    description: 'open, rename, archive, fork or delete a session (Ctrl-O)',
    run: (ctx) => ctx.pickSession(),
  },
  { name: 'model', description: 'choose the profile, model and effort', run: (ctx) => ctx.pickModel() },
  {
    name: 'context',
    description: 'what the next request holds, with token estimates',
    run: async (ctx) => {
      // A new session not created yet is created now: the commands below read or change it.
      const id = await ctx.link.ensure()
      ctx.say(await readContext(ctx.link.client(), id))
    },
  },
  {
    name: 'compact',
    description: 'summarize older turns; the history stays whole',
    argumentHint: '[truncate] [TURNS]',
    run: async (ctx) => {
      const id = await ctx.link.ensure()
      ctx.say('compacting…')
      ctx.say(await compact(ctx.link.client(), id, ctx.args))
    },
  },
  {
    name: 'reload',
    description: 'reload MCP servers and instructions; models: the model catalogue',
    argumentHint: '[composition] [models]',
    values: RELOAD_TARGETS,
    run: async (ctx) => {
      const id = await ctx.link.ensure()
      ctx.say('reloading…')
      ctx.say(await reload(ctx.link.client(), id, ctx.args))
    },
  },
  {
    name: 'commands',
    description: 'the command templates of this session; /NAME ARGS sends one',
    run: async (ctx) => {
      const id = await ctx.link.ensure()
      ctx.say(commandsText(await ctx.templates.refresh(ctx.link.client(), id)))
    },
  },
  {
    name: 'skills',
    description: 'the skills of this session and whether each is on',
    run: async (ctx) => {
      const id = await ctx.link.ensure()
      ctx.say(skillsText(await readSkills(ctx.link.client(), id)))
    },
  },
  {
    name: 'upgrade',
    description: 'move the session onto a kernel of the build on disk (its jobs stop)',
    run: async (ctx) => {
      const id = await ctx.link.ensure()
      ctx.say('upgrading the kernel…')
      ctx.say(await upgradeKernel(ctx.link.client(), id))
    },
  },
  {
    name: 'work',
    description: "the workspace's work items; add TITLE, start, done or cancel ID",
    argumentHint: '[add TITLE | start ID | done ID | cancel ID]',
    values: ['add', 'start', 'done', 'cancel'],
    run: async (ctx) => {
      const { text, warn } = await workText(
        ctx.link.client(),
        ctx.link.session?.workspace ?? ctx.workspace,
        ctx.args,
      )
      ctx.say(text, warn ? 'warn' : 'info')
    },
  },
  {
    name: 'diff',
    description: "the files the last run changed; Enter shows one's diff",
    run: (ctx) => ctx.changes('diff'),
  },
  {
    name: 'undo',
    description: 'put the files the last run changed back as they were (asks first)',
    run: (ctx) => ctx.changes('undo'),
  },
  {
    name: 'redo',
    description: 'undo the last /undo: put back what it replaced (asks first)',
    run: (ctx) => ctx.changes('redo'),
  },
  {
    name: 'login',
    description: 'sign in to a provider',
    argumentHint: '[PROVIDER]',
    values: SIGN_IN_EXTENSIONS,
    run: (ctx) => ctx.login(ctx.args || undefined),
  },
  {
    name: MCP_LOGIN,
    description: 'sign in to an MCP server that needs it (the next message starts it)',
    argumentHint: '[NAME]',
    run: (ctx) => {
      const which = serverToSignIn(ctx.args, ctx.link.session)
      if ('problem' in which) return ctx.say(which.problem, 'warn')
      ctx.login(mcpProvider(which.server))
    },
  },
  {
    name: 'quota',
    description: 'quota of the signed-in accounts, with their trails',
    run: (ctx) => ctx.quota(),
  },
  {
    name: 'help',
    description: 'keys and commands',
    run: (ctx) => ctx.say(helpText()),
  },
  { name: 'quit', description: 'leave hearth (the daemon keeps running)', run: (ctx) => ctx.quit() },
]

export const KEYS: [string, string][] = [
  ['Enter', 'send'],
  ['Alt-Enter, Shift-Enter', 'new line'],
  ['Up / Down', 'message history (at the first / last line)'],
  ['PageUp / PageDown', 'scroll the transcript'],
  ['Ctrl-T', "show or hide details: reasoning, all of a tool call's output"],
  ['Ctrl-O', 'sessions'],
  ['y / n / a', 'answer an approval: allow, deny, always for this session'],
  ['Esc', 'deny an open approval, else interrupt the running turn'],
  ['Ctrl-C', 'interrupt the running turn'],
  ['Ctrl-C twice', 'quit'],
  ['Tab', 'complete a command'],
]

export function helpText(): string {
  const cmd = COMMANDS.map(
    (c) => `  /${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ''}  ${c.description}`,
  )
  const keys = KEYS.map(([k, what]) => `  ${k}  ${what}`)
  return ['Commands:', ...cmd, 'Keys:', ...keys].join('\n')
}

/** The command a line names (`/name args`), or undefined when it is not a command. */
export function parseCommand(
  line: string,
): { command: SlashCommand | undefined; name: string; args: string } | undefined {
  const m = /^\/([a-z][a-z-]*)(?:\s+([\s\S]*))?$/.exec(line.trim())
  if (!m) return undefined
  return { command: COMMANDS.find((c) => c.name === m[1]), name: m[1], args: (m[2] ?? '').trim() }
}
