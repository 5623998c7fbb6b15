// Slash commands in the full-screen client, in tmux against a real daemon: keys typed in
// one burst are kept as typed (never replaced by a suggestion for an older prefix), Enter on
// a complete argument runs the command, and `/reload` alone reloads the composition only.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { BIN } from '../helpers/daemon.ts'
import { Tmux } from '../helpers/tmux.ts'
import { getSession, type Setup, startWithUpstream } from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'

const ready = (screen: string) => /idle · .*fake-model/.test(screen) && screen.includes('──────')

describe('slash commands in the full-screen client', () => {
  let s: Setup
  const terminals: Tmux[] = []
  const open = async () => {
    const id = await createSession(s.d)
    const t = Tmux.start([process.execPath, BIN, '--home', s.d.home, 'chat', id], {
      columns: 100,
      rows: 40,
      cwd: s.d.home,
    })
    terminals.push(t)
    await t.waitFor(ready, 'the prompt')
    return { t, id }
  }

  before(async () => {
    s = await startWithUpstream()
  })
  after(async () => {
    for (const t of terminals) t.kill()
    await s.d.stop()
    await s.upstream.close()
  })

  it('`/` then `help⏎` in one burst runs /help, not a stale suggestion', async () => {
    const { t } = await open()
    t.type('/')
    await t.waitFor((x) => /→ \S+/.test(x), 'the list of commands')
    // One send-keys: the keys reach the client together, faster than the list follows them.
    t.type('help\r')
    const screen = await t.waitFor((x) => x.includes('Commands:') && x.includes('Keys:'), 'the help')
    assert.doesNotMatch(screen, /unknown command/)
    assert.equal(s.upstream.requests.length, 0, 'nothing was sent to the model')
  })

  it('Enter on a complete argument runs the command at once', async () => {
    const { t, id } = await open()
    t.type('/approve au')
    await t.waitFor((x) => /→ auto/.test(x), 'the value offered')
    t.type('to')
    await t.waitFor((x) => /^ \/approve auto\s*$/m.test(x) && /→ auto/.test(x), 'the whole value typed')
    t.keys('Enter')
    await t.waitFor((x) => x.includes('approval policy: auto'), 'the command to run')
    const session = await getSession(s.d, id)
    assert.equal(session.configuration_resource.value.approval_policy, 'auto')
  })

  it('/reload alone reloads the composition and leaves the model catalogue alone', async () => {
    const { t } = await open()
    t.type('/reload')
    t.keys('Enter')
    const screen = await t.waitFor((x) => x.includes('composition reloaded'), 'the reload')
    assert.doesNotMatch(screen, /model catalogue/)
  })
})
