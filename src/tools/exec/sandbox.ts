// Where commands run: inside bubblewrap (`bwrap`) when the machine has it and the session's
// policy asks for isolation, else directly. The sandbox sees the whole file system read-only,
// may write only the workspace and the roots the user allowed, gets a fresh /tmp, /dev and
// /proc (its own pid namespace: the kernel's environment in /proc/<pid>/environ is out of
// reach), no network unless the policy allows it, and never sees hearth's home (the daemon
// token and creds.json), the user's agent sockets nor the user's other credentials (the
// hidden paths: an empty tmpfs over a directory, /dev/null over a file). The `.git` of each
// writable root is bound read-only unless the session allows git writes.
// docs/tools-exec.md has the threat model.
import { execFile, spawnSync } from 'node:child_process'
import { accessSync, constants, existsSync, realpathSync, statSync } from 'node:fs'
import { delimiter, join, resolve, sep } from 'node:path'
import { resolveHome } from '../../home.ts'
import { gitDirsOf } from '../git-dirs.ts'
import { hiddenPaths } from '../hidden-paths.ts'
import type { SandboxPolicy, SandboxStatus } from '../types.ts'

/**
 * Namespaces and privileges, the same for every command. `--unshare-all` takes user (where
 * needed), ipc, pid, net, uts and cgroup namespaces; `--share-net` gives the network back
 * when the policy allows it. `--cap-drop ALL` matters when hearth runs as root (containers):
 * bwrap then keeps every capability by default, and a command could unmount the tmpfs that
 * hides hearth's home or remount / writable. `--die-with-parent` ends the sandbox if the
 * kernel process dies. No `--new-session`: it would move the command out of the process
 * group that hearth stops on timeout and interrupt, and it guards against TIOCSTI on a
 * controlling terminal, which commands never have (they are spawned in a new session).
 */
const NAMESPACE_FLAGS = ['--unshare-all', '--cap-drop', 'ALL', '--die-with-parent'] as const

/** The fresh /tmp is memory; a cap keeps a runaway command from filling it. */
const TMP_SIZE_BYTES = 1024 * 1024 * 1024

/**
 * The home is read-only in the sandbox: tools that cache there (npm, pip, go, anything that
 * follows XDG) are pointed at the fresh /tmp instead, so they work, uncached, and leave nothing.
 */
export const SANDBOX_ENV: Readonly<Record<string, string>> = {
  XDG_CACHE_HOME: '/tmp/.cache',
  npm_config_cache: '/tmp/.npm',
}
const CACHE_ENV = Object.entries(SANDBOX_ENV).flatMap(([name, value]) => ['--setenv', name, value])

/** Sockets that would let a command act as the user outside the sandbox. */
const SOCKET_FILES = ['/var/run/docker.sock', '/run/docker.sock', '/run/podman/podman.sock'] as const

export interface WrapOptions {
  /** Where the command starts (inside one of the writable roots). */
  cwd: string
  policy: SandboxPolicy
  /** Directories the command may write: the workspace and the allowed roots. */
  writableRoots: readonly string[]
  /** Hearth's home, hidden inside the sandbox; defaults to the one the daemon would use. */
  home?: string
  /** Further directories to hide (an empty tmpfs over each). */
  hide?: readonly string[]
  /**
   * Directories bound read-only at their own path over every other mount: the session's
   * private directory (its snapshot, and a warm sandbox's output pipes).
   */
  readOnly?: readonly string[]
}

interface Probe {
  status: SandboxStatus
  bwrap: string | null
  /** Whether this bwrap knows `--size` (0.8 and later). */
  sizedTmp: boolean
}

let cached: Probe | undefined

/** What the machine offers, probed once per process by running `bwrap … true`. */
export function sandboxStatus(): SandboxStatus {
  cached ??= probeSandbox()
  return cached.status
}

/** Whether a command under this policy runs inside the sandbox. */
export function isolates(policy: SandboxPolicy): boolean {
  return policy.isolate && sandboxStatus().available
}

/**
 * The argv to spawn for `argv` under `opts`: the bwrap command line when the policy isolates
 * and bwrap works here, else `argv` itself (the caller reports that no sandbox is in force:
 * see isolates(); nothing downgrades silently).
 */
export function wrap(argv: readonly string[], opts: WrapOptions): string[] {
  if (!isolates(opts.policy)) return [...argv]
  const probe = cached as Probe
  return [
    probe.bwrap as string,
    ...NAMESPACE_FLAGS,
    ...(opts.policy.network ? ['--share-net'] : []),
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    ...mountArgs(opts, probe.sizedTmp),
    ...(opts.readOnly ?? []).flatMap((dir) => ['--ro-bind', dir, dir]),
    ...CACHE_ENV,
    '--chdir',
    opts.cwd,
    '--',
    ...argv,
  ]
}

/** A mount over the read-only root: a writable bind, or an empty tmpfs that hides a path. */
interface Mount {
  path: string
  args: string[]
}

/**
 * The mounts on top of `/`, parents before children, so that a workspace inside a hidden
 * directory (or /tmp) is bound after the tmpfs that hides its parent, and a home inside the
 * workspace is hidden after the workspace is bound. On equal paths the bind comes last.
 */
function mountArgs(opts: WrapOptions, sizedTmp: boolean): string[] {
  const mounts: Mount[] = [
    { path: '/tmp', args: [...(sizedTmp ? ['--size', String(TMP_SIZE_BYTES)] : []), '--tmpfs', '/tmp'] },
  ]
  const hidden = hiddenMounts(opts)
  for (const dir of hidden.dirs) mounts.push({ path: dir, args: ['--tmpfs', dir] })
  for (const file of SOCKET_FILES) {
    const real = existing(file)?.real
    if (real) mounts.push({ path: real, args: ['--ro-bind', '/dev/null', real] })
  }
  for (const real of hidden.files) mounts.push({ path: real, args: ['--ro-bind', '/dev/null', real] })
  const roots = new Set<string>()
  for (const root of opts.writableRoots) {
    const real = existing(root)?.real
    if (real) roots.add(real)
  }
  for (const real of roots) mounts.push({ path: real, args: ['--bind', real, real] })
  // Bound after (deeper than) the root that holds it: a read-only island in a writable tree.
  if (!opts.policy.gitWritable)
    for (const git of gitDirsOf([...roots])) mounts.push({ path: git, args: ['--ro-bind', git, git] })
  const depth = (p: string) => (p === sep ? 0 : p.split(sep).length)
  return mounts
    .map((m, order) => ({ m, order }))
    .sort((a, b) => depth(a.m.path) - depth(b.m.path) || a.order - b.order)
    .flatMap(({ m }) => m.args)
}

/** The policy's hidden paths, else the default list (src/tools/hidden-paths.ts). */
function hiddenOf(opts: WrapOptions): readonly string[] {
  return opts.policy.hidden ?? hiddenPaths()
}

/**
 * What to hide, as real paths that exist now: directories (an empty tmpfs over each: hearth's
 * home, the user's runtime sockets, `hide` and the hidden paths that are directories) and
 * files (/dev/null over each). One pass, one stat a path: this runs for every command.
 */
function hiddenMounts(opts: WrapOptions): { dirs: string[]; files: string[] } {
  const alwaysDirs = [opts.home ?? resolveHome(undefined), '/run/user', ...(opts.hide ?? [])]
  if (process.env.XDG_RUNTIME_DIR) alwaysDirs.push(process.env.XDG_RUNTIME_DIR)
  const dirs = new Set<string>()
  const files: string[] = []
  for (const path of alwaysDirs) {
    const found = existing(path)
    if (found?.dir) dirs.add(found.real)
  }
  for (const path of hiddenOf(opts)) {
    const found = existing(path)
    if (found?.dir) dirs.add(found.real)
    else if (found) files.push(found.real)
  }
  return { dirs: [...dirs], files }
}

/** The real path of `path` and whether it is a directory, or null when it does not exist. */
function existing(path: string): { real: string; dir: boolean } | null {
  try {
    // Most hidden paths do not exist: a stat that answers `undefined` for them costs far
    // less than the error a failed realpath throws (~20 µs each, 40 paths per command).
    // stat follows links, so its type is the real path's.
    const st = statSync(path, { throwIfNoEntry: false })
    if (!st) return null
    // The native realpath is one system call; the JavaScript one walks each component.
    return { real: realpathSync.native(resolve(path)), dir: st.isDirectory() }
  } catch {
    return null
  }
}

/** Finds `bwrap` and checks that it can build the sandbox wrap() asks for, here. */
export function probeSandbox(bwrap: string | null = findOnPath('bwrap')): Probe {
  if (!bwrap) return unavailable('bwrap (bubblewrap) is not on PATH')
  let reason = ''
  for (const sizedTmp of [true, false]) {
    const r = spawnSync(bwrap, probeArgs(sizedTmp), { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 })
    if (r.status === 0) return available(bwrap, sizedTmp)
    reason ||= refusal(r.error, r.stderr.toString(), r.status)
  }
  return unavailable(reason)
}

/**
 * sandboxStatus() without blocking the event loop while bwrap runs (~10 ms): for a process
 * whose thread serves requests (the daemon's GET /server). Shares the same cache.
 */
export async function sandboxStatusAsync(): Promise<SandboxStatus> {
  if (cached) return cached.status
  const bwrap = findOnPath('bwrap')
  let probe = unavailable('bwrap (bubblewrap) is not on PATH')
  if (bwrap) {
    let reason = ''
    for (const sizedTmp of [true, false]) {
      const r = await run(bwrap, probeArgs(sizedTmp))
      if (r.status === 0) {
        probe = available(bwrap, sizedTmp)
        break
      }
      reason ||= refusal(r.error, r.stderr, r.status)
      probe = unavailable(reason)
    }
  }
  cached ??= probe
  return cached.status
}

function probeArgs(sizedTmp: boolean): string[] {
  const tmp = sizedTmp ? ['--size', String(TMP_SIZE_BYTES), '--tmpfs', '/tmp'] : ['--tmpfs', '/tmp']
  return [...NAMESPACE_FLAGS, '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', ...tmp, 'true']
}

function run(
  file: string,
  args: string[],
): Promise<{ status: number | null; stderr: string; error?: Error }> {
  return new Promise((resolve) => {
    const child = execFile(file, args, { timeout: 10_000 }, (err, _stdout, stderr) => {
      const spawnFailed = err && typeof (err as NodeJS.ErrnoException).code === 'string'
      resolve({ status: err ? (child.exitCode ?? null) : 0, stderr, error: spawnFailed ? err : undefined })
    })
  })
}

function refusal(error: Error | undefined, stderr: string, status: number | null): string {
  return error
    ? `bwrap could not run: ${error.message}`
    : `bwrap refused to build the sandbox: ${stderr.trim() || `exit ${status}`}`
}

function available(bwrap: string, sizedTmp: boolean): Probe {
  return { status: { available: true, kind: 'bubblewrap', reason: null }, bwrap, sizedTmp }
}

function unavailable(reason: string): Probe {
  return { status: { available: false, kind: null, reason }, bwrap: null, sizedTmp: false }
}

function findOnPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue
    const candidate = join(dir, name)
    try {
      accessSync(candidate, constants.X_OK)
      if (existsSync(candidate) && statSync(candidate).isFile()) return candidate
    } catch {}
  }
  return null
}
