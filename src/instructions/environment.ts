// The environment block: the facts of this session and this moment that the model needs and
// cannot see by itself (the workspace, the operating system, what the approval policy and the
// sandbox let it do, the date, git). It ends the system text: everything before it is the
// same from step to step, so a provider's prompt cache keeps it; a run computes the block
// once, at its start, so every step of the run sends the same text (docs/instructions.md).
import { arch, release, type } from 'node:os'
import type { ApprovalPolicy } from '../schemas/common.ts'
import type { SandboxStatus } from '../tools/types.ts'
import { type GitState, readGitState } from './git.ts'

export interface EnvironmentFacts {
  /** The workspace as tools see it: absolute, symlinks resolved. */
  workspace: string
  allowedRoots: readonly string[]
  policy: ApprovalPolicy
  /** Whether commands run in a sandbox here, as a kernel process probed it (null: not yet). */
  sandbox: SandboxStatus | null
  /** `tools.network`: whether sandboxed commands may use the network. */
  network: boolean
  /** The repository's state, null outside one. */
  git: GitState | null
  now: Date
}

/** What a run's tool scope (runs/active-run.ts) says of the session. */
interface Scope {
  workspace: string
  allowedRoots: readonly string[]
  policy: ApprovalPolicy
  sandbox: { network: boolean }
}

/** The facts of a session's scope at a moment, reading the git state of its workspace. */
export async function environmentFacts(
  scope: Scope,
  sandbox: SandboxStatus | null,
  now = new Date(),
): Promise<EnvironmentFacts> {
  const { workspace, allowedRoots, policy } = scope
  const git = await readGitState(workspace).catch(() => null)
  return { workspace, allowedRoots, policy, sandbox, network: scope.sandbox.network, git, now }
}

const POLICY_TEXT: Record<ApprovalPolicy, string> = {
  'read-only':
    'read-only: you can read and search; writing files and running commands are not available in this session.',
  ask: 'ask: reads run at once; each write, edit and command waits until the person allows or denies it.',
  auto: 'auto: every call runs without asking the person.',
}

/** The block as the system text ends with it. */
export function environmentBlock(f: EnvironmentFacts): string {
  const lines = [
    `Workspace: ${f.workspace}`,
    ...(f.allowedRoots.length > 0 ? [`Other directories you may use: ${f.allowedRoots.join(', ')}`] : []),
    `Operating system: ${type()} ${release()} (${arch()}); commands run with bash`,
    `Approval policy: ${POLICY_TEXT[f.policy]}`,
    ...(f.policy === 'read-only' ? [] : [`Commands: ${commandsText(f)}`]),
    `Date: ${localDate(f.now)}`,
    `Git: ${gitText(f.git)}`,
  ]
  return `<environment>\n${lines.join('\n')}\n</environment>`
}

function commandsText({ sandbox, network, allowedRoots }: EnvironmentFacts): string {
  const net = network ? 'on' : 'off'
  if (sandbox?.available) {
    const writable = allowedRoots.length > 0 ? 'the workspace and the other directories' : 'the workspace'
    return `run in a sandbox: the file system is read-only outside ${writable}, /tmp is private, and the network is ${net}.`
  }
  if (sandbox === null)
    return `whether they run in a sandbox is not known yet; the network is ${net} if they do.`
  return 'run without a sandbox (none is available on this machine), as the person, with their network access.'
}

function gitText(git: GitState | null): string {
  if (!git) return 'the workspace is not in a git repository.'
  const at =
    git.branch !== null ? `on branch ${git.branch}` : `detached at ${git.detached ?? 'an unknown commit'}`
  if (git.unstaged === null) return `${at}.`
  return `${at}; ${git.unstaged ? 'tracked files have unstaged changes' : 'no unstaged changes to tracked files'}.`
}

/** The date where the daemon runs, as YYYY-MM-DD. */
function localDate(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`
}
