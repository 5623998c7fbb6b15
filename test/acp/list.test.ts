// session/list through `hearth acp`: the root sessions, latest activity first, of the
// editor's cwd when it names one (all of them otherwise), each with its workspace, title and
// last activity, paged with nextCursor; initialize advertises it.
import assert from 'node:assert/strict'
import { mkdtempSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk'
import { answer } from '../fakes/tool-script.ts'
import { createSession } from '../streams/sse-client.ts'
import { runMessage } from '../tools/agent-helpers.ts'
import { agentAcpFixture } from './fixture.ts'

describe('session/list', () => {
  let elsewhere: string
  const acp = agentAcpFixture({
    prepare: async () => {
      elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-ws-')))
    },
  })

  it('initialize advertises the list', async () => {
    const init = await acp.editor.agent.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
    })
    assert.ok(init.agentCapabilities?.sessionCapabilities?.list)
  })

  it('lists the sessions of the cwd, latest first, with title and activity', async () => {
    const first = await acp.newSession()
    const second = await acp.newSession()
    const other = await createSession(acp.s.d, { kind: 'new', workspace: elsewhere })
    acp.s.upstream.enqueue(answer('Hello.'))
    await runMessage(acp.s, first, 'Plan the garden\nwith details')
    const { sessions } = await acp.editor.agent.request(methods.agent.session.list, { cwd: acp.workspace })
    const ids = sessions.map((x) => x.sessionId)
    assert.ok(ids.includes(first) && ids.includes(second))
    assert.ok(!ids.includes(other), 'another workspace is not listed')
    assert.equal(ids[0], first, 'latest activity first')
    assert.equal(sessions[0].cwd, acp.workspace)
    assert.equal(sessions[0].title, 'Plan the garden')
    assert.ok(sessions[0].updatedAt && !Number.isNaN(Date.parse(sessions[0].updatedAt)))
    const all = await acp.editor.agent.request(methods.agent.session.list, {})
    assert.ok(
      all.sessions.some((x) => x.sessionId === other),
      'no cwd: every workspace',
    )
  })

  it('pages with nextCursor', async () => {
    const ws = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-ws-')))
    const made = new Set<string>()
    for (let i = 0; i < 55; i++) made.add(await createSession(acp.s.d, { kind: 'new', workspace: ws }))
    const page1 = await acp.editor.agent.request(methods.agent.session.list, { cwd: ws })
    assert.equal(page1.sessions.length, 50)
    assert.ok(page1.nextCursor)
    const page2 = await acp.editor.agent.request(methods.agent.session.list, {
      cwd: ws,
      cursor: page1.nextCursor,
    })
    assert.equal(page2.sessions.length, 5)
    assert.equal(page2.nextCursor ?? null, null)
    const seen = new Set([...page1.sessions, ...page2.sessions].map((x) => x.sessionId))
    assert.deepEqual(seen, made)
  })
})
