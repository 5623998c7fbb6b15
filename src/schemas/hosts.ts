// Group `hosts`: the SSH hosts the daemon's user can reach, and probes of them. Hosts come
// from the user's ~/.ssh/config (its Host aliases) and from earlier probes. A probe runs the
// system `ssh` non-interactively (BatchMode): it never types a password or accepts a new host
// key; a host that needs either reads `auth_required` or `host_key_unknown`, and the person
// signs in with `ssh` themselves (docs/hosts.md).
import type { Static } from 'typebox'
import * as Type from 'typebox'
import { Continuation, EmptyRequest, Limit, Nullable, Timestamp } from './common.ts'
import { defineOps } from './op.ts'

/** An alias or host name: no leading dash (it would read as an ssh option), no user@, no spaces. */
export const HOST_PATTERN = '^[A-Za-z0-9_][A-Za-z0-9._-]{0,252}$'

export const PROBE_STATES = [
  'never',
  'probing',
  'reachable',
  'unreachable',
  'auth_required',
  'host_key_unknown',
] as const

export const HostProbe = Type.Object(
  {
    state: Type.Enum(PROBE_STATES, {
      description:
        '`never` probed; `probing` now; `reachable`; `unreachable` (no connection, or a timeout); `auth_required` (sign in with ssh yourself); `host_key_unknown` (accept its key with ssh yourself)',
    }),
    started_at: Nullable(Timestamp),
    checked_at: Nullable(Timestamp),
    detail: Nullable(Type.String({ description: 'What ssh said, cut to 512 characters' })),
    system: Nullable(Type.String({ description: '`uname -sm` on the host' })),
    hearth: Nullable(Type.String({ description: '`hearth --version` on the host, when it has hearth' })),
  },
  { additionalProperties: false },
)

export const Host = Type.Object(
  {
    host: Type.String({ description: 'The alias or name given to ssh' }),
    in_ssh_config: Type.Boolean({ description: 'A Host alias of ~/.ssh/config' }),
    hostname: Nullable(Type.String({ description: 'HostName from ~/.ssh/config' })),
    user: Nullable(Type.String({ description: 'User from ~/.ssh/config' })),
    port: Nullable(Type.Integer({ description: 'Port from ~/.ssh/config' })),
    probe: HostProbe,
  },
  { additionalProperties: false, $id: 'Host' },
)
export type Host = Static<typeof Host>
export type HostProbe = Static<typeof HostProbe>

export const HostPage = Type.Object(
  { items: Type.Array(Host, { description: 'By host' }), next: Nullable(Continuation) },
  { additionalProperties: false, $id: 'HostPage' },
)

const HostsQuery = Type.Object(
  {
    target: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 253,
        description: 'Only hosts whose name holds this (any case)',
      }),
    ),
    limit: Type.Optional(Limit(200, 100)),
    next: Type.Optional(Continuation),
  },
  { additionalProperties: false },
)

const HostParams = Type.Object(
  {
    host: Type.String({
      pattern: HOST_PATTERN,
      description: 'An alias or host name',
      examples: ['build-box'],
      'x-problem': 'invalid_host',
    }),
  },
  { additionalProperties: false },
)

export const hostsOps = defineOps({
  'hosts.list': {
    method: 'GET',
    path: '/hosts',
    summary: 'The SSH hosts known: ~/.ssh/config aliases and hosts probed before',
    description:
      'By name: the plain Host aliases of ~/.ssh/config (no patterns) with their HostName, User and Port, and every host probed before with its last outcome. target keeps the hosts whose name holds it, in any case; next is bound to target.',
    tags: ['hosts'],
    capability: 'host_probes',
    query: HostsQuery,
    responses: { 200: { description: 'A page of hosts', schema: HostPage } },
    problems: ['invalid_continuation'],
  },
  'hosts.probe': {
    method: 'POST',
    path: '/hosts/{host}/probe',
    summary: 'Probe a host with ssh (non-interactive)',
    description:
      'Starts a probe and answers at once with the host (probe.state `probing`); read GET /hosts for the outcome. A probe already running is joined, not started again.',
    tags: ['hosts'],
    capability: 'host_probes',
    params: HostParams,
    body: EmptyRequest,
    responses: { 202: { description: 'The probe runs', schema: Host } },
    problems: [],
  },
})
