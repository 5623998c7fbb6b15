// Hosts: ~/.ssh/config's aliases merged with the hosts probed before, and the probes
// themselves. A probe's start and its outcome are each committed (host_probes); a probe
// already running for a host is joined, so repeated POSTs start one ssh. A probe a restart
// cut short is read as unreachable, saying so, rather than `probing` forever.
import type { Host, HostProbe } from '../schemas/hosts.ts'
import type { Db } from '../store/db.ts'
import { runProbe } from './probe.ts'
import { type ConfigHost, sshConfigHosts } from './ssh-config.ts'

interface ProbeRow extends HostProbe {
  host: string
}

const NEVER: HostProbe = {
  state: 'never',
  started_at: null,
  checked_at: null,
  detail: null,
  system: null,
  hearth: null,
}

export interface HostsDeps {
  db: Db
  now: () => number
  /** Where ~/.ssh/config is read (tests); the user's own by default. */
  sshConfig?: () => Promise<ConfigHost[]>
  /** Runs one probe (tests may replace ssh). */
  probe?: typeof runProbe
}

export class Hosts {
  readonly #d: HostsDeps
  readonly #running = new Map<string, Promise<void>>()
  readonly #stopping = new AbortController()

  constructor(deps: HostsDeps) {
    this.#d = deps
  }

  /** Every known host whose name holds `target` (any case), by name, after `after`. */
  async list(
    target: string | undefined,
    limit: number,
    after: string | null,
  ): Promise<{ items: Host[]; after: string | null }> {
    const config = new Map((await (this.#d.sshConfig ?? sshConfigHosts)()).map((h) => [h.host, h]))
    const probes = new Map(
      (this.#d.db.prepare('SELECT * FROM host_probes').all() as ProbeRow[]).map((r) => [r.host, r]),
    )
    const needle = target?.toLowerCase()
    const names = [...new Set([...config.keys(), ...probes.keys()])]
      .filter((h) => needle === undefined || h.toLowerCase().includes(needle))
      .filter((h) => after === null || h > after)
      .sort()
    const page = names.slice(0, limit)
    const items = page.map((h) => this.#host(h, config.get(h), probes.get(h)))
    return { items, after: names.length > limit ? (page.at(-1) ?? null) : null }
  }

  /** Starts a probe of `host` (or joins the running one) and answers with the host now. */
  async probe(host: string): Promise<Host> {
    // The config first: from here on nothing waits, so the answer shows the probe as started.
    const config = (await (this.#d.sshConfig ?? sshConfigHosts)()).find((h) => h.host === host)
    if (!this.#running.has(host)) {
      const started_at = new Date(this.#d.now()).toISOString()
      this.#save({ host, ...NEVER, state: 'probing', started_at })
      const run = (this.#d.probe ?? runProbe)(host, this.#stopping.signal)
        .then((outcome) => {
          // A probe the drain killed stays `probing` in the table: the next start reads it as cut short.
          if (this.#stopping.signal.aborted) return
          this.#save({ host, ...outcome, started_at, checked_at: new Date(this.#d.now()).toISOString() })
        })
        .finally(() => this.#running.delete(host))
      this.#running.set(host, run)
    }
    return this.#host(host, config, this.#row(host))
  }

  /** Kills the probes running now (the daemon drains); their hosts read as cut short. */
  stop(): void {
    this.#stopping.abort()
  }

  #row(host: string): ProbeRow | undefined {
    return this.#d.db.prepare('SELECT * FROM host_probes WHERE host = ?').get(host) as ProbeRow | undefined
  }

  #save(r: ProbeRow): void {
    this.#d.db
      .prepare(
        `INSERT OR REPLACE INTO host_probes (host, state, started_at, checked_at, detail, system, hearth)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(r.host, r.state, r.started_at, r.checked_at, r.detail, r.system, r.hearth)
  }

  #host(host: string, config: ConfigHost | undefined, row: ProbeRow | undefined): Host {
    let probe: HostProbe = NEVER
    if (row) {
      const { host: _host, ...stored } = row
      probe = stored
      // `probing` in the table with no probe running here: the daemon stopped during it.
      if (row.state === 'probing' && !this.#running.has(host))
        probe = { ...stored, state: 'unreachable', detail: 'the probe was cut short by a daemon restart' }
    }
    return {
      host,
      in_ssh_config: config !== undefined,
      hostname: config?.hostname ?? null,
      user: config?.user ?? null,
      port: config?.port ?? null,
      probe,
    }
  }
}
