// One probe of a host: the system `ssh`, non-interactive, asked to print `uname -sm` and
// `hearth --version`. BatchMode means ssh never prompts: no password, no passphrase, no new
// host key; those come back as states the person acts on with ssh themselves. The child gets
// a small environment (what ssh needs to find the user's keys and agent, nothing of hearth's
// or a provider's) and is killed with its process group after PROBE_TIMEOUT_MS.
import { spawn } from 'node:child_process'
import type { HostProbe } from '../schemas/hosts.ts'

/** How long a probe may take in all; ssh's own connect timeout is shorter. */
export const PROBE_TIMEOUT_MS = 20_000
const CONNECT_TIMEOUT_S = 10
/** Characters of ssh's message kept in `detail`. */
const DETAIL_MAX = 512
/** Bytes of output read from the host at most. */
const OUTPUT_MAX = 16 * 1024

/** What the remote shell runs: the system, then hearth's version when it is installed. */
const REMOTE_COMMAND = 'uname -sm; if command -v hearth >/dev/null 2>&1; then hearth --version; fi'

/** Variables ssh needs: where the user's keys, config and agent are. */
const PASSED_ENV = ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LC_ALL', 'SSH_AUTH_SOCK']

export function sshArgs(host: string): string[] {
  return [
    '-o',
    'BatchMode=yes',
    '-o',
    `ConnectTimeout=${CONNECT_TIMEOUT_S}`,
    '-o',
    'StrictHostKeyChecking=yes',
    '-o',
    'LogLevel=ERROR',
    '-T',
    '--',
    host,
    REMOTE_COMMAND,
  ]
}

function probeEnv(): Record<string, string> {
  const env: Record<string, string> = {}
  for (const name of PASSED_ENV) {
    const value = process.env[name]
    if (value !== undefined) env[name] = value
  }
  return env
}

type Outcome = Omit<HostProbe, 'started_at' | 'checked_at'>

/** Reads what ssh's exit and messages mean. */
export function classify(code: number | null, stdout: string, stderr: string, timedOut: boolean): Outcome {
  const detail = stderr.trim().split('\n').filter(Boolean).at(-1)?.slice(0, DETAIL_MAX) ?? null
  if (timedOut)
    return {
      state: 'unreachable',
      detail: `no answer within ${PROBE_TIMEOUT_MS / 1000} s`,
      system: null,
      hearth: null,
    }
  if (code === 0) {
    const [system, hearth] = stdout
      .trim()
      .split('\n')
      .map((l) => l.trim())
    return { state: 'reachable', detail: null, system: system || null, hearth: hearth || null }
  }
  if (/Permission denied|Too many authentication failures|passphrase|password/i.test(stderr))
    return { state: 'auth_required', detail, system: null, hearth: null }
  if (/Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED/i.test(stderr))
    return { state: 'host_key_unknown', detail, system: null, hearth: null }
  return { state: 'unreachable', detail: detail ?? `ssh exited with ${code}`, system: null, hearth: null }
}

/** Runs one probe; never rejects. An abort (the daemon drains) kills it at once. */
export function runProbe(host: string, signal?: AbortSignal): Promise<Outcome> {
  return new Promise((resolve) => {
    let stdout = ''
    let stderr = ''
    let timedOut = false
    const child = spawn('ssh', sshArgs(host), {
      env: probeEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    const kill = () => {
      try {
        process.kill(-(child.pid as number), 'SIGKILL')
      } catch {
        // already gone
      }
    }
    const timer = setTimeout(() => {
      timedOut = true
      kill()
    }, PROBE_TIMEOUT_MS)
    signal?.addEventListener('abort', kill, { once: true })
    child.stdout.on('data', (d: Buffer) => {
      if (stdout.length < OUTPUT_MAX) stdout += d.toString('utf8')
    })
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < OUTPUT_MAX) stderr += d.toString('utf8')
    })
    child.on('error', (err) => {
      clearTimeout(timer)
      resolve({
        state: 'unreachable',
        detail: `ssh could not be started: ${err.message}`,
        system: null,
        hearth: null,
      })
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve(classify(code, stdout, stderr, timedOut))
    })
  })
}
