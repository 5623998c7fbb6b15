// `hearth acp` as an editor starts it: initialize (version negotiation, agent info,
// capabilities), a session created and prompted, standard output carrying nothing but
// protocol, and the daemon of the home found, or started with a note on standard error.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { methods } from '@agentclientprotocol/sdk'
import { answer } from '../fakes/tool-script.ts'
import { BIN, pathWithThisNode, tempHome } from '../helpers/daemon.ts'
import { running } from '../inputs/helpers.ts'
import { acpFixture } from './fixture.ts'
import { initialized } from './helpers.ts'

describe('hearth acp: initialize, a first prompt, the daemon', () => {
  const acp = acpFixture('cwd')

  it('negotiates the version and says what it is and takes', async () => {
    const init = await acp.editor.agent.request(methods.agent.initialize, { protocolVersion: 1 })
    assert.equal(init.protocolVersion, 1)
    assert.equal(init.agentInfo?.name, 'hearth')
    assert.match(init.agentInfo?.version ?? '', /^\d+\.\d+\.\d+/)
    const caps = init.agentCapabilities
    assert.equal(caps?.loadSession, true)
    assert.deepEqual(caps?.promptCapabilities, { image: true, audio: false, embeddedContext: true })
    assert.equal(caps?.mcpCapabilities?.http, true)
    assert.ok(Array.isArray(init.authMethods))
    // A version this agent does not know is answered with the newest it does.
    const newer = await acp.editor.agent.request(methods.agent.initialize, { protocolVersion: 99 })
    assert.equal(newer.protocolVersion, 1)
  })

  it('creates a session in the editor’s cwd and answers a prompt; stdout is only protocol', async () => {
    const cwd = acp.workspace
    const created = await acp.editorSession()
    const read = await acp.s.d.request({ path: `/sessions/${created.sessionId}` })
    assert.equal(read.json().workspace, cwd)
    acp.s.upstream.enqueue(answer('Hello, editor.'))
    const r = await acp.prompt(created.sessionId, 'hello')
    assert.equal(r.stopReason, 'end_turn')
    assert.equal(acp.editor.text(created.sessionId), 'Hello, editor.')
    assert.ok(acp.editor.stdoutLines.length > 3)
    acp.editor.assertStdoutIsProtocol()
  })
})

describe('hearth acp without a daemon', () => {
  it('starts the home’s daemon, saying so on stderr, and serves', async () => {
    const home = tempHome()
    const editor = await initialized({ home })
    try {
      assert.match(editor.stderr, /no hearth daemon runs for .*; starting one/)
      const { pid } = JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8'))
      assert.ok(running(pid))
      editor.assertStdoutIsProtocol()
      assert.equal(await editor.close(), 0)
      assert.ok(running(pid), 'the daemon outlives the editor')
      process.kill(pid, 'SIGTERM')
    } finally {
      editor.child.kill('SIGKILL')
    }
  })

  it('--no-start fails with the reason on stderr and nothing on stdout', async () => {
    const home = tempHome()
    const child = spawn(BIN, ['acp', '--no-start', '--home', home], {
      env: { ...process.env, PATH: pathWithThisNode() },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => {
      stdout += d
    })
    child.stderr.on('data', (d) => {
      stderr += d
    })
    const code = await new Promise((r) => child.on('exit', r))
    assert.equal(code, 1)
    assert.equal(stdout, '')
    assert.match(stderr, /no hearth daemon runs for .*hearth daemon --home/)
  })
})
