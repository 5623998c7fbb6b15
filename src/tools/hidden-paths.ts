// The user's other credentials: files and directories no tool may read, even where they lie
// inside the workspace or an allowed root (a workspace that is the home directory, an allowed
// root of `~`). Inside the sandbox a hidden directory is an empty tmpfs and a hidden file is
// /dev/null (src/tools/exec/sandbox.ts); the file tools refuse them and walks (list, glob,
// grep) pass them by. The list is the defaults below, plus the `tools.hidden_paths` setting,
// minus `tools.visible_paths` (docs/tools.md, "Hidden paths").
import { realpathSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join, normalize, resolve } from 'node:path'
import { isWithin } from '../util/paths.ts'
import { gitWriteRefusal } from './git-dirs.ts'
import type { SandboxPolicy } from './types.ts'

/** Hidden unless the settings lift them: `~/` is the home of the user hearth runs as. */
export const DEFAULT_HIDDEN_PATHS: readonly string[] = [
  // Keys and cloud, cluster, registry and package-index credentials.
  '~/.ssh',
  '~/.gnupg',
  '~/.aws',
  '~/.azure',
  '~/.config/gcloud',
  '~/.kube',
  '~/.docker',
  '~/.netrc',
  '~/.git-credentials',
  '~/.config/git/credentials',
  '~/.config/gh',
  '~/.npmrc',
  '~/.yarnrc.yml',
  '~/.pypirc',
  '~/.pgpass',
  '~/.my.cnf',
  '~/.cargo/credentials',
  '~/.cargo/credentials.toml',
  '~/.gem/credentials',
  '~/.terraform.d/credentials.tfrc.json',
  '~/.vault-token',
  '~/.password-store',
  '~/.local/share/keyrings',
  // Other agents' sign-ins.
  '~/.codex',
  '~/.claude',
  '~/.claude.json',
  '~/.gemini',
  '~/.pi/agent/auth.json',
  '~/.local/share/opencode',
  '~/.config/opencode',
  '~/.config/github-copilot',
  // Browser profiles (cookies, saved passwords).
  '~/.mozilla',
  '~/snap/firefox',
  '~/.config/google-chrome',
  '~/.config/chromium',
  '~/.config/BraveSoftware',
  '~/.config/microsoft-edge',
  '~/.config/vivaldi',
  '~/.config/opera',
]

export interface HiddenPathSettings {
  /** Paths hidden besides the defaults (absolute or `~/…`). */
  hidden_paths?: readonly string[]
  /** Paths of the defaults (or of hidden_paths) that are not hidden after all. */
  visible_paths?: readonly string[]
}

/** `~/x` under `home`, an absolute path as it is (normalized); anything else is skipped. */
function expand(path: string, home: string): string | null {
  if (path === '~') return home
  if (path.startsWith('~/')) return join(home, path.slice(2))
  return isAbsolute(path) ? normalize(path) : null
}

/** The absolute paths hidden under these settings, in order, without repeats. */
export function hiddenPaths(settings: HiddenPathSettings = {}, home: string = homedir()): string[] {
  const expandAll = (list: readonly string[] = []) =>
    list.map((p) => expand(p, home)).filter((p): p is string => p !== null)
  const lifted = new Set(expandAll(settings.visible_paths))
  const all = [...expandAll(DEFAULT_HIDDEN_PATHS), ...expandAll(settings.hidden_paths)]
  return [...new Set(all)].filter((p) => !lifted.has(p))
}

// The kernel process's current list, with each path's real path beside it (a hidden directory
// may sit behind a symlink). The tools host sets it from every call's sandbox policy: the list
// comes from the daemon's settings, the same for every session, and the walks (list, glob,
// grep) consult it without a call context of their own.
let current: { given: string[]; real: string[] } = { given: [], real: [] }
let currentKey: string | null = null

/** Sets the hidden paths the file tools refuse (absolute, as hiddenPaths() returns them). */
export function setHiddenPaths(paths: readonly string[]): void {
  const key = paths.join('\0')
  if (key === currentKey) return
  currentKey = key
  const given = paths.map((p) => resolve(p))
  current = { given, real: given.map(realOrSelf) }
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p)
  } catch {
    return p
  }
}

/** The hidden path that `abs` (a real, absolute path) lies in, or null. */
export function hiddenPathOf(abs: string): string | null {
  if (currentKey === null) setHiddenPaths(hiddenPaths()) // no call has set it yet: the defaults
  for (let i = 0; i < current.given.length; i++) {
    if (isWithin(abs, current.real[i]) || isWithin(abs, current.given[i])) return current.given[i]
  }
  return null
}

/** Whether `abs` (a real, absolute path) lies in a hidden path. */
export function isHiddenPath(abs: string): boolean {
  return hiddenPathOf(abs) !== null
}

/** The refusal for a confined path inside a hidden path, or null when it is not. */
export function hiddenRefusal(input: string, real: string): string | null {
  const hidden = hiddenPathOf(real)
  if (hidden === null) return null
  return (
    `${input}: lies in ${hidden}, which holds the user's credentials and is hidden from tools ` +
    '(the tools settings list the hidden paths). Refused; do not try to reach it another way.'
  )
}

/**
 * What confinement asks of a resolved path beyond lying in a root: it is not hidden, and a
 * write does not reach a repository's `.git` unless the session allows git writes
 * (src/tools/git-dirs.ts). `roots` are real paths. The refusal's message, or null.
 */
export function guardRefusal(
  input: string,
  real: string,
  roots: readonly string[],
  access: 'read' | 'write',
  policy: Pick<SandboxPolicy, 'gitWritable'> | undefined,
): string | null {
  const hidden = hiddenRefusal(input, real)
  if (hidden !== null || access === 'read' || policy?.gitWritable) return hidden
  return gitWriteRefusal(input, real, roots)
}
