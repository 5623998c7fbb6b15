// session/list through `hearth acp`: the root sessions, latest activity first, of the
// editor's cwd when it names one (all of them otherwise), each with its workspace, title and
// last activity, paged with nextCursor; initialize advertises it.
import assert from 'node:assert/strict'
import { mkdtempSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk'
import { answer } from '../fakes/tool-script.ts'
import { createSession } from '../streams/sse-client.ts'
import { type AgentSetup, newSession, runMessage, startAgent } from '../tools/agent-helpers.ts'
import { type Editor, startEditor } from './editor.ts'

describe('session/list', () => {
  let s: AgentSetup
  let editor: Editor
  let elsewhere: string
  before(async () => {
    s = await startAgent()
    elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-ws-')))
    editor = await startEditor(s.home)
  })
  after(async () => {
    await editor?.close()
    await s.d.stop()
    await s.upstream.close()
  })

  it('initialize advertises the list', async () => {
    const init = await editor.agent.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION })
    assert.ok(init.agentCapabilities?.sessionCapabilities?.list)
  })

  it('lists the sessions of the cwd, latest first, with title and activity', async () => {
    const first = await newSession(s)
    const second = await newSession(s)
    const other = await createSession(s.d, { kind: 'new', workspace: elsewhere })
    s.upstream.enqueue(answer('Hello.'))
    await runMessage(s, first, 'Plan the garden\nwith details')
    const { sessions } = await editor.agent.request(methods.agent.session.list, { cwd: s.workspace })
    const ids = sessions.map((x) => x.sessionId)
    assert.ok(ids.includes(first) && ids.includes(second))
    assert.ok(!ids.includes(other), 'another workspace is not listed')
    assert.equal(ids[0], first, 'latest activity first')
    assert.equal(sessions[0].cwd, s.workspace)
    assert.equal(sessions[0].title, 'Plan the garden')
    assert.ok(sessions[0].updatedAt && !Number.isNaN(Date.parse(sessions[0].updatedAt)))
    const all = await editor.agent.request(methods.agent.session.list, {})
    assert.ok(
      all.sessions.some((x) => x.sessionId === other),
      'no cwd: every workspace',
    )
  })

  it('pages with nextCursor', async () => {
    const ws = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-ws-')))
    const made = new Set<string>()
    for (let i = 0; i < 55; i++) made.add(await createSession(s.d, { kind: 'new', workspace: ws }))
    const page1 = await editor.agent.request(methods.agent.session.list, { cwd: ws })
    assert.equal(page1.sessions.length, 50)
    assert.ok(page1.nextCursor)
    const page2 = await editor.agent.request(methods.agent.session.list, {
      cwd: ws,
      cursor: page1.nextCursor,
    })
    assert.equal(page2.sessions.length, 5)
    assert.equal(page2.nextCursor ?? null, null)
    const seen = new Set([...page1.sessions, ...page2.sessions].map((x) => x.sessionId))
    assert.deepEqual(seen, made)
  })
})
