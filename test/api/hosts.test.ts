// GET /hosts and POST /hosts/{host}/probe against a real daemon. The daemon's HOME holds an
// ~/.ssh/config; `ssh` on its PATH is a stand-in script (a real child process) that answers
// per host as OpenSSH does: a reachable host, refused keys, an unknown host key, a refused
// connection, a slow host. It logs each run's arguments and environment.
import assert from 'node:assert/strict'
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'

const FAKE_SSH = `#!/bin/sh
# Stand-in for OpenSSH: the host is the argument after "--".
log="$HOME/ssh.log"
host=""; prev=""
for a in "$@"; do
  if [ "$prev" = "--" ]; then host="$a"; fi
  prev="$a"
done
{ echo "ARGS $*"; echo "SECRET=\${OPENAI_API_KEY:-none} HEARTH=\${HEARTH_HOME:-none} AGENT=\${SSH_AUTH_SOCK:-none}"; } >> "$log"
case "$host" in
  good) echo "Linux x86_64"; echo "hearth 0.1.0" ;;
  bare) echo "Darwin arm64" ;;
  locked) echo "me@locked: Permission denied (publickey,password)." >&2; exit 255 ;;
  newkey) echo "No ED25519 host key is known for newkey and you have requested strict checking." >&2
          echo "Host key verification failed." >&2; exit 255 ;;
  down) echo "ssh: connect to host down port 22: Connection refused" >&2; exit 255 ;;
  slow) sleep 1; echo "Linux aarch64" ;;
  *) echo "ssh: Could not resolve hostname $host: Name or service not known" >&2; exit 255 ;;
esac
`

describe('hosts', () => {
  let d: TestDaemon
  let log: string
  before(async () => {
    const userHome = tempHome()
    mkdirSync(join(userHome, '.ssh'))
    writeFileSync(
      join(userHome, '.ssh', 'config'),
      [
        'Host good box',
        '  HostName good.example.net',
        '  User deploy',
        '  Port 2222',
        'Host *.internal !secret',
        '  User ops',
        'Host locked',
        '  HostName 10.0.0.7',
        '',
      ].join('\n'),
    )
    const bin = join(userHome, 'bin')
    mkdirSync(bin)
    writeFileSync(join(bin, 'ssh'), FAKE_SSH)
    chmodSync(join(bin, 'ssh'), 0o755)
    log = join(userHome, 'ssh.log')
    writeFileSync(log, '')
    d = await startDaemon({
      env: {
        HOME: userHome,
        PATH: `${bin}:${process.env.PATH}`,
        OPENAI_API_KEY: 'sk-must-not-reach-ssh',
        SSH_AUTH_SOCK: '/tmp/agent.sock',
      },
    })
  })
  after(async () => {
    await d.stop()
  })

  const probe = (host: string) =>
    d.request({
      method: 'POST',
      path: `/hosts/${host}/probe`,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
  const hostNow = async (host: string) =>
    ((await d.request({ path: `/hosts?target=${host}` })).json().items as any[]).find((h) => h.host === host)
  /** The host once its probe has ended (polls GET /hosts). */
  const settledState = async (host: string) => {
    const deadline = Date.now() + 30_000
    for (;;) {
      const h = await hostNow(host)
      if (h && h.probe.state !== 'probing') return h
      if (Date.now() > deadline) throw new Error(`${host}: the probe never ended`)
      await new Promise((r) => setTimeout(r, 10))
    }
  }

  it('lists the plain aliases of ~/.ssh/config with their settings, never probed', async () => {
    const body = (await d.request({ path: '/hosts' })).json()
    assert.deepEqual(
      body.items.map((h: { host: string }) => h.host),
      ['box', 'good', 'locked'],
    )
    const good = body.items[1]
    assert.deepEqual(
      { hostname: good.hostname, user: good.user, port: good.port, in: good.in_ssh_config },
      { hostname: 'good.example.net', user: 'deploy', port: 2222, in: true },
    )
    assert.equal(good.probe.state, 'never')
    assert.equal(body.next, null)
  })

  it('probes a reachable host: system and hearth version, through BatchMode ssh with a small environment', async () => {
    const r = await probe('good')
    assert.equal(r.status, 202, r.text())
    assert.equal(r.json().probe.state, 'probing')
    assert.match(r.json().probe.started_at, /^\d{4}-/)
    const h = await settledState('good')
    assert.equal(h.probe.state, 'reachable')
    assert.equal(h.probe.system, 'Linux x86_64')
    assert.equal(h.probe.hearth, 'hearth 0.1.0')
    assert.match(h.probe.checked_at, /^\d{4}-/)
    const text = readFileSync(log, 'utf8')
    assert.match(text, /ARGS -o BatchMode=yes .*-o StrictHostKeyChecking=yes .*-- good /)
    assert.match(text, /SECRET=none HEARTH=none AGENT=\/tmp\/agent\.sock/)
    const bare = await (async () => {
      await probe('bare')
      return settledState('bare')
    })()
    assert.deepEqual(
      [bare.probe.system, bare.probe.hearth, bare.in_ssh_config],
      ['Darwin arm64', null, false],
    )
  })

  it('reads refused keys, an unknown host key and a refused connection as states to act on', async () => {
    for (const host of ['locked', 'newkey', 'down', 'nowhere']) assert.equal((await probe(host)).status, 202)
    assert.equal((await settledState('locked')).probe.state, 'auth_required')
    assert.match((await settledState('locked')).probe.detail, /Permission denied/)
    assert.equal((await settledState('newkey')).probe.state, 'host_key_unknown')
    const down = await settledState('down')
    assert.equal(down.probe.state, 'unreachable')
    assert.match(down.probe.detail, /Connection refused/)
    assert.equal((await settledState('nowhere')).probe.state, 'unreachable')
  })

  it('joins a probe already running instead of starting another ssh', async () => {
    const before = readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l.includes('-- slow ')).length
    const [a, b] = await Promise.all([probe('slow'), probe('slow')])
    assert.equal(a.json().probe.started_at, b.json().probe.started_at)
    const c = await probe('slow')
    assert.equal(c.json().probe.started_at, a.json().probe.started_at)
    assert.equal((await settledState('slow')).probe.system, 'Linux aarch64')
    const runs = readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l.includes('-- slow ')).length
    assert.equal(runs - before, 1)
  })

  it('filters by target, pages by name, and refuses host names ssh would read as options', async () => {
    const box = (await d.request({ path: '/hosts?target=BO' })).json()
    assert.deepEqual(
      box.items.map((h: { host: string }) => h.host),
      ['box'],
    )
    const first = (await d.request({ path: '/hosts?limit=2' })).json()
    const second = (await d.request({ path: `/hosts?limit=2&next=${first.next}` })).json()
    const names = [...first.items, ...second.items].map((h: { host: string }) => h.host)
    assert.deepEqual(names, [...names].sort())
    assert.equal(new Set(names).size, 4)
    const bad = await d.request({ path: `/hosts?target=x&next=${first.next}` })
    assert.equal(bad.json().code, 'invalid_continuation')
    for (const host of ['-oProxyCommand=touch%20x', 'me@good', 'a%20b']) {
      const r = await probe(host)
      assert.equal(r.status, 400, `${host}: ${r.text()}`)
      assert.equal(r.json().code, 'invalid_host')
    }
    assert.doesNotMatch(readFileSync(log, 'utf8'), /ProxyCommand/)
  })
})
