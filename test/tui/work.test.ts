// `/work` in the full-screen client, in tmux against a real daemon: add items, see them as an
// outline of the session's workspace, change one's status by the start of its id, and the
// usage and lookup messages.
import assert from 'node:assert/strict'
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { BIN } from '../helpers/daemon.ts'
import { Tmux } from '../helpers/tmux.ts'
import { type Setup, startWithUpstream } from '../inputs/helpers.ts'

const ready = (screen: string) => /idle · .*fake-model/.test(screen) && screen.includes('──────')

describe('/work in the full-screen client', () => {
  let s: Setup
  let workspace: string
  let t: Tmux | undefined
  before(async () => {
    s = await startWithUpstream()
    workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-tui-work-')))
  })
  after(async () => {
    t?.kill()
    await s.d.stop()
    await s.upstream.close()
    rmSync(workspace, { recursive: true, force: true })
  })

  it('adds items, shows the outline, and marks one done by the start of its id', async () => {
    t = Tmux.start([process.execPath, BIN, '--home', s.d.home], { columns: 100, rows: 30, cwd: workspace })
    await t.waitFor(ready, 'the prompt')
    t.type('/work add Ship the release')
    t.keys('Enter')
    await t.waitFor((x) => /added [0-9a-f]{8}-[0-9a-f]{4}\s+Ship the release/.test(x), 'the first item')
    const list = await s.d.request({
      path: `/extensions/work/items?workspace=${encodeURIComponent(workspace)}`,
    })
    const [item] = list.json().items
    assert.equal(item.title, 'Ship the release')
    // A child made over HTTP shows under its parent.
    const child = await s.d.request({
      method: 'POST',
      path: `/extensions/work/items?workspace=${encodeURIComponent(workspace)}`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Write the notes', parent_id: item.id }),
    })
    assert.equal(child.status, 201)
    t.type('/work')
    t.keys('Enter')
    await t.waitFor(
      (x) =>
        x.includes(`Work items of ${workspace}:`) &&
        new RegExp(`^\\s+○ ${item.id.slice(0, 13)}  Ship the release$`, 'm').test(x) &&
        /^\s{4,}○ [0-9a-f-]{13} {2}Write the notes$/m.test(x),
      'the outline',
    )
    t.type(`/work done ${item.id.slice(0, 36)}`)
    t.keys('Enter')
    await t.waitFor((x) => x.includes(`${item.id.slice(0, 13)} done: Ship the release`), 'the change')
    const read = await s.d.request({
      path: `/extensions/work/items/${item.id}?workspace=${encodeURIComponent(workspace)}`,
    })
    assert.equal(read.json().status, 'done')
    t.type('/work done ffffffff')
    t.keys('Enter')
    await t.waitFor((x) => x.includes('no work item ffffffff'), 'the lookup message')
    t.type('/work frob')
    t.keys('Enter')
    await t.waitFor((x) => x.includes('usage: /work [add TITLE'), 'the usage')
  })
})
