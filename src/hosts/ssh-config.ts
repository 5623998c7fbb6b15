// The Host aliases of the user's ~/.ssh/config, read with the kept `ssh-config` parser. A
// pattern (`*`, `?`, `!`) is not a host one can name, so only plain aliases are listed, each
// with the HostName, User and Port its own section sets. Include files and Match blocks are
// not followed: ssh itself still applies them when a probe runs.
import { readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'

export interface ConfigHost {
  host: string
  hostname: string | null
  user: string | null
  port: number | null
}

/** Bytes of ~/.ssh/config read at most. */
const CONFIG_MAX_BYTES = 1024 * 1024

type Line = { param?: string; value?: unknown; config?: Line[] }

function values(value: unknown): string[] {
  if (typeof value === 'string') return value.split(/\s+/).filter(Boolean)
  if (Array.isArray(value)) return value.map((v) => String((v as { val?: unknown }).val ?? v))
  return []
}

function setting(section: Line[], name: string): string | null {
  const line = section.find((l) => l.param?.toLowerCase() === name.toLowerCase())
  const [first] = values(line?.value)
  return first ?? null
}

/**
 * The aliases of `path` (default ~/.ssh/config); none when it is missing or unreadable. The
 * parser is loaded on the first call: most daemons never list hosts.
 */
export async function sshConfigHosts(path = join(homedir(), '.ssh', 'config')): Promise<ConfigHost[]> {
  let text: string
  try {
    text = readFileSync(path).subarray(0, CONFIG_MAX_BYTES).toString('utf8')
  } catch {
    return []
  }
  let parsed: Line[]
  try {
    const { default: SSHConfig } = await import('ssh-config')
    parsed = SSHConfig.parse(text) as unknown as Line[]
  } catch {
    return []
  }
  const hosts = new Map<string, ConfigHost>()
  for (const line of parsed) {
    if (line.param?.toLowerCase() !== 'host') continue
    const section = line.config ?? []
    const portText = setting(section, 'Port')
    const port = portText !== null && /^\d{1,5}$/.test(portText) ? Number(portText) : null
    for (const alias of values(line.value)) {
      if (/[*?!]/.test(alias) || hosts.has(alias)) continue
      hosts.set(alias, {
        host: alias,
        hostname: setting(section, 'HostName'),
        user: setting(section, 'User'),
        port,
      })
    }
  }
  return [...hosts.values()]
}
