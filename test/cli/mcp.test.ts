// `hearth mcp add|list|remove` against a running daemon, through bin/hearth.mjs: servers go
// into config.json, their secrets into creds.json only, listings show secrets by name only,
// and a server added this way serves a session's model.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { answer, callTools, toolResultsOf } from '../fakes/tool-script.ts'
import { ROOT, runCli } from '../helpers/daemon.ts'
import { fileJson, readGroup } from '../settings/helpers.ts'
import { type AgentSetup, newSession, runMessage, startAgent } from '../tools/agent-helpers.ts'

const noHome = { HEARTH_HOME: '' }
const SECRET = 'cli-env-secret-0b7d'
const TOKEN = 'cli-bearer-secret-9e21'

describe('hearth mcp', () => {
  let s: AgentSetup
  before(async () => {
    s = await startAgent()
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })
  // --home first: after `--` every word belongs to the server's command.
  const cli = (args: string[], stdin?: string) => runCli(['--home', s.d.home, ...args], noHome, { stdin })

  it('add a command server and a URL server; list shows them without their secrets; remove removes them', async () => {
    const server = join(ROOT, 'test/fakes/mcp/stdio-server.ts')
    const local = await cli([
      'mcp',
      'add',
      'files',
      '--env',
      `FAKE_MCP_TOKEN=${SECRET}`,
      '--',
      process.execPath,
      server,
    ])
    assert.equal(local.code, 0, local.stderr)
    assert.equal(local.stdout, 'saved MCP server files (its env in creds.json)\n')
    const remote = await cli(
      [
        'mcp',
        'add',
        'web',
        '--url',
        'http://127.0.0.1:9/mcp',
        '--header',
        'X-Key: abc123def',
        '--bearer-token-stdin',
      ],
      `${TOKEN}\n`,
    )
    assert.equal(remote.code, 0, remote.stderr)
    assert.equal(remote.stdout, 'saved MCP server web (its headers, bearerToken in creds.json)\n')
    const config = fileJson(s.home, 'config.json').mcp.servers
    assert.deepEqual(config.files, { command: process.execPath, args: [server] })
    assert.deepEqual(config.web, { url: 'http://127.0.0.1:9/mcp' })
    const creds = fileJson(s.home, 'creds.json').mcp
    assert.deepEqual(creds.files, { env: { FAKE_MCP_TOKEN: SECRET } })
    assert.deepEqual(creds.web, { headers: { 'X-Key': 'abc123def' }, bearerToken: TOKEN })

    const list = await cli(['mcp', 'list'])
    assert.equal(list.code, 0, list.stderr)
    assert.match(list.stdout, /^NAME +TRANSPORT +COMMAND OR URL +SAVED SECRETS \/ STATE$/m)
    assert.match(list.stdout, /^files +stdio +\S+ \S+stdio-server\.ts +env FAKE_MCP_TOKEN$/m)
    assert.match(list.stdout, /^web +http +http:\/\/127\.0\.0\.1:9\/mcp +headers X-Key; bearer token$/m)
    for (const secret of [SECRET, TOKEN, 'abc123def']) assert.ok(!list.stdout.includes(secret))
    const json = await cli(['mcp', 'list', '--json'])
    assert.deepEqual(JSON.parse(json.stdout).web.bearerToken, { saved: true })

    const again = await cli(['mcp', 'add', 'web', '--url', 'https://other.example.com/'])
    assert.equal(again.code, 1)
    assert.match(again.stderr, /there is a server named web already/)
    const both = await cli(['mcp', 'add', 'x', '--url', 'https://a.example.com/', '--', 'cmd'])
    assert.equal(both.code, 2)
    const badEnv = await cli(['mcp', 'add', 'x', '--env', 'NOVALUE', '--', 'cmd'])
    assert.equal(badEnv.code, 2)
    assert.match(badEnv.stderr, /is not KEY=VALUE/)

    // The server added here serves a session.
    s.upstream.enqueue(
      callTools({ name: 'mcp__files__echo', arguments: { text: 'from the cli' } }),
      answer('ok'),
    )
    const sid = await newSession(s)
    await runMessage(s, sid, 'echo', 40_000)
    assert.equal(toolResultsOf(s.upstream.requests[1].body)[0].output, 'echo: from the cli')
    // `session show` has a line per server: this one serves, the unreachable URL failed.
    const show = await cli(['session', 'show', sid])
    assert.equal(show.code, 0, show.stderr)
    assert.match(show.stdout, /^mcp +files: ready \(\d+ tools\)$/m)
    assert.match(show.stdout, /^mcp +web: failed: it failed to start: /m)
    for (const secret of [SECRET, TOKEN, 'abc123def']) assert.ok(!show.stdout.includes(secret))

    const removed = await cli(['mcp', 'remove', 'web'])
    assert.equal(removed.code, 0, removed.stderr)
    assert.equal(removed.stdout, 'removed MCP server web (and its secrets)\n')
    assert.equal(fileJson(s.home, 'creds.json').mcp.web, undefined)
    const { settings } = await readGroup(s.d, 'mcp')
    assert.deepEqual(Object.keys(settings.servers), ['files'])
    const unknown = await cli(['mcp', 'remove', 'web'])
    assert.equal(unknown.code, 1)
    assert.equal(unknown.stderr, 'hearth: no MCP server named web; see hearth mcp list\n')
    assert.ok(!readFileSync(join(s.home, 'config.json'), 'utf8').includes(SECRET))
  })
})
