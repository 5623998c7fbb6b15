// The session picker and the model picker in a real terminal: tmux runs `hearth` against a
// real daemon whose profiles point at the scripted fake upstream; the tests type with
// send-keys, read the screen, and check what the daemon holds afterwards.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { BIN } from '../helpers/daemon.ts'
import { Tmux } from '../helpers/tmux.ts'
import { idle, message, putInput, type Setup, startWithUpstream, waitSession } from '../inputs/helpers.ts'
import { configure, createSession } from '../streams/sse-client.ts'

const ready = (screen: string) => /idle · /.test(screen) && screen.includes('──────')
/** The screen's line holding `text`, by index. */
const lineOf = (screen: string, text: string) => screen.split('\n').findIndex((l) => l.includes(text))

describe('the pickers in tmux', () => {
  let s: Setup
  const terminals: Tmux[] = []
  const open = (args: string[] = []) => {
    const t = Tmux.start([process.execPath, BIN, '--home', s.d.home, ...args], {
      columns: 120,
      rows: 30,
      cwd: s.d.home,
    })
    terminals.push(t)
    return t
  }
  const read = async (id: string) => {
    const r = await s.d.request({ path: `/sessions/${id}?tail=0` })
    return { status: r.status, body: r.status === 200 ? r.json() : undefined }
  }

  before(async () => {
    s = await startWithUpstream()
  })
  after(async () => {
    for (const t of terminals) t.kill()
    await s.d.stop()
    await s.upstream.close()
  })

  it('lists sessions (pinned first, children under parents, archived hidden), searches, opens one with its history and counts the visit', async () => {
    const parent = await createSession(s.d, { kind: 'new', workspace: s.d.home, name: 'pick parent' })
    await createSession(s.d, { kind: 'child', parent_id: parent, name: 'pick child' })
    const pinned = await createSession(s.d, { kind: 'new', workspace: s.d.home, name: 'pick pinned' })
    await configure(s.d, pinned, { preferences: { pinned: true } })
    const archived = await createSession(s.d, { kind: 'new', workspace: s.d.home, name: 'pick archived' })
    await configure(s.d, archived, { preferences: { archived: true } })
    const talked = await createSession(s.d, { kind: 'new', workspace: s.d.home, name: 'pick talked' })
    s.upstream.enqueue({ text: ['the answer ', 'kept in history'] })
    await putInput(s.d, talked, message('a question for later'))
    await waitSession(s.d, talked, (x) => idle(x) && x.input_order === 1)
    const opensBefore = (await read(talked)).body.preferences.opens

    const t = open()
    await t.waitFor(ready, 'the prompt')
    t.keys('C-o')
    let screen = await t.waitFor((x) => /Sessions · \d+/.test(x) && x.includes('pick child'), 'the picker')
    assert.ok(lineOf(screen, 'pick pinned') < lineOf(screen, 'pick talked'), 'pinned first')
    assert.ok(lineOf(screen, 'pick pinned') < lineOf(screen, 'pick parent'), 'pinned first')
    assert.equal(
      lineOf(screen, 'pick child'),
      lineOf(screen, 'pick parent') + 1,
      'the child under its parent',
    )
    assert.match(screen, /└ pick child/)
    assert.equal(lineOf(screen, 'pick archived'), -1, 'archived hidden')
    t.keys('Tab')
    await t.waitFor((x) => x.includes('pick archived') && x.includes('archived shown'), 'archived on Tab')
    t.keys('Tab')

    t.type('talked')
    screen = await t.waitFor(
      (x) => /search: talked/.test(x) && x.includes('pick talked') && !x.includes('pick parent'),
      'the search result',
    )
    t.keys('Enter')
    screen = await t.waitFor((x) => x.includes('kept in history') && ready(x), 'the session with its history')
    assert.match(screen, /› a question for later/)
    await waitSessionOpens(talked, opensBefore + 1)
  })

  async function waitSessionOpens(id: string, opens: number) {
    await waitSession(s.d, id, (x) => x.preferences.opens >= opens)
  }

  it('renames, archives and deletes (after a y) from the picker, as seen on the daemon', async () => {
    const id = await createSession(s.d, { kind: 'new', workspace: s.d.home, name: 'picker subject' })
    const t = open()
    await t.waitFor(ready, 'the prompt')
    t.type('/sessions')
    t.keys('Enter')
    await t.waitFor((x) => /Sessions · \d+/.test(x), 'the picker')
    t.type('picker subject')
    await t.waitFor((x) => /› picker subject/.test(x), 'the session chosen')

    t.keys('C-r')
    await t.waitFor((x) => /new name: picker subject/.test(x), 'the name to edit')
    t.keys('C-u')
    t.type('picker renamed')
    t.keys('Enter')
    await t.waitFor((x) => x.includes('renamed to picker renamed'), 'the rename')
    assert.equal((await read(id)).body.name, 'picker renamed')

    t.keys('C-u')
    t.type('picker renamed')
    await t.waitFor((x) => /› picker renamed/.test(x), 'the renamed session found')
    t.keys('C-a')
    await t.waitFor((x) => x.includes('archived picker renamed'), 'the archive')
    assert.equal((await read(id)).body.preferences.archived, true)
    await t.waitFor((x) => !/› picker renamed/.test(x), 'the archived session hidden')

    t.keys('Tab')
    await t.waitFor((x) => /› picker renamed .*\[archived\]/.test(x), 'the archived session shown')
    t.keys('C-d')
    await t.waitFor((x) => x.includes('delete picker renamed? y to delete'), 'the confirmation')
    t.type('n')
    await t.waitFor((x) => x.includes('not deleted'), 'the refusal')
    assert.equal((await read(id)).status, 200)
    t.keys('C-d')
    await t.waitFor((x) => x.includes('delete picker renamed? y to delete'), 'the confirmation')
    t.type('y')
    await t.waitFor((x) => x.includes('deleted picker renamed'), 'the deletion')
    assert.equal((await read(id)).status, 410)
  })

  it('pins after the pinned sessions and unpins with Ctrl-P, as seen on the daemon', async () => {
    const first = await createSession(s.d, { kind: 'new', workspace: s.d.home, name: 'pin test first' })
    await configure(s.d, first, { preferences: { pinned: true, pin_order: 5 } })
    const second = await createSession(s.d, { kind: 'new', workspace: s.d.home, name: 'pin test second' })
    const t = open()
    await t.waitFor(ready, 'the prompt')
    t.keys('C-o')
    t.type('pin test')
    let screen = await t.waitFor(
      (x) => /search: pin test/.test(x) && x.includes('pin test second'),
      'the two',
    )
    assert.ok(lineOf(screen, 'pin test first') < lineOf(screen, 'pin test second'), 'the pinned one first')
    t.keys('Down')
    await t.waitFor((x) => /› pin test second/.test(x), 'the second chosen')
    t.keys('C-p')
    await t.waitFor((x) => x.includes('pinned pin test second'), 'the pin')
    const pinned = (await read(second)).body.preferences
    assert.equal(pinned.pinned, true)
    assert.equal(pinned.pin_order, 6, 'after the other pinned session')
    screen = await t.waitFor((x) => /pin test second +\*/.test(x), 'the pin mark')
    assert.ok(lineOf(screen, 'pin test first') < lineOf(screen, 'pin test second'), 'by pin order')
    t.keys('Up')
    await t.waitFor((x) => /› pin test first/.test(x), 'the first chosen')
    t.keys('C-p')
    await t.waitFor((x) => x.includes('unpinned pin test first'), 'the unpin')
    const unpinned = (await read(first)).body.preferences
    assert.equal(unpinned.pinned, false)
    assert.equal(unpinned.pin_order, null)
    screen = await t.waitFor(
      (x) => lineOf(x, 'pin test second') < lineOf(x, 'pin test first'),
      'the pinned one first',
    )
    assert.doesNotMatch(screen, /pin test first +\*/)
  })

  it('reads the list past its first 200 sessions as the selection nears the end, for a search too; a pinned one from a later page comes first', async () => {
    const ids: string[] = []
    for (let i = 0; i < 230; i++)
      ids.push(
        await createSession(s.d, {
          kind: 'new',
          workspace: s.d.home,
          name: `bulk ${String(i).padStart(3, '0')}`,
        }),
      )
    // The oldest session, on the listing's second page, is pinned: it is read first.
    await configure(s.d, ids[0], { preferences: { pinned: true, pin_order: 1 } })
    const t = open()
    await t.waitFor(ready, 'the prompt')
    t.keys('C-o')
    t.type('bulk')
    let screen = await t.waitFor(
      (x) => /Sessions · 20\d\+/.test(x) && x.includes('bulk 229'),
      'the first page',
    )
    const top = lineOf(screen, 'bulk 000')
    assert.ok(top >= 0 && top < lineOf(screen, 'bulk 229'), 'the pinned session first')
    for (let i = 0; i < 40 && !/› bulk 001/.test(screen); i++) {
      t.keys('PageDown')
      screen = await t.waitFor((x) => /Sessions · \d+/.test(x), 'the list')
    }
    assert.match(screen, /› bulk 001/)
    assert.match(screen, /Sessions · 230\s/)
    // The whole list pages the same way.
    t.keys('C-u')
    screen = await t.waitFor(
      (x) => /^search:\s*$/m.test(x) && /Sessions · 20\d\+/.test(x),
      'the list unsearched',
    )
    for (let i = 0; i < 60 && !screen.includes('bulk 001'); i++) {
      t.keys('PageDown')
      screen = await t.waitFor((x) => /Sessions · \d+/.test(x), 'the list')
    }
    assert.match(screen, /bulk 001/)
    assert.doesNotMatch(screen, /Sessions · \d+\+/)
  })

  it('forks the chosen session and opens the fork; deleting the open session opens a new one', async () => {
    const id = await createSession(s.d, { kind: 'new', workspace: s.d.home, name: 'fork source' })
    const t = open()
    await t.waitFor(ready, 'the prompt')
    t.keys('C-o')
    t.type('fork source')
    await t.waitFor((x) => /› fork source/.test(x), 'the source chosen')
    t.keys('C-f')
    const screen = await t.waitFor((x) => x.includes('forked ') && ready(x), 'the fork opened in the chat')
    const forkId = /forked \S+ into ([0-9a-f-]{36})/.exec(screen.replace(/\n\s*/g, ' '))?.[1]
    assert.ok(forkId, screen)
    const fork = await read(forkId)
    assert.equal(fork.body.creation.submitted.source_id, id)
    assert.equal(fork.body.creation.submitted.kind, 'forked')

    // Deleting the open session (the fork) opens a new one in its place.
    t.keys('C-o')
    const list = await t.waitFor((x) => x.includes('(open)') && /^› /m.test(x), 'the open session marked')
    const downs = lineOf(list, '(open)') - list.split('\n').findIndex((l) => l.startsWith('› '))
    for (let i = 0; i < downs; i++) t.keys('Down')
    await t.waitFor((x) => /^› .*\(open\)/m.test(x), 'the open session chosen')
    t.keys('C-d')
    await t.waitFor((x) => x.includes('y to delete'), 'the confirmation')
    t.type('y')
    await t.waitFor((x) => x.includes('deleted (empty)'), 'the deletion')
    assert.equal((await read(forkId)).status, 410)
    t.keys('Escape')
    await t.waitFor(
      (x) => ready(x) && !x.includes('Sessions ·') && !x.includes('deleted'),
      'a new session in the chat',
    )
  })

  it('opens a busy session from the picker live', async () => {
    const id = await createSession(s.d, { kind: 'new', workspace: s.d.home, name: 'busy one' })
    s.upstream.enqueue({ text: Array.from({ length: 60 }, (_, i) => `bit${i} `), delayMs: 60 })
    await putInput(s.d, id, message('a long answer'))
    await waitSession(s.d, id, (x) => x.activity.output_utf8_bytes > 20)
    const t = open()
    await t.waitFor(ready, 'the prompt')
    t.keys('C-o')
    t.type('busy one')
    await t.waitFor((x) => /› busy one .*\[running\]/.test(x), 'the busy session marked')
    t.keys('Enter')
    const live = await t.waitFor(
      (x) => /bit[1-4]\d\b/.test(x) && /running · /.test(x),
      'the answer streaming',
    )
    assert.match(live.replace(/\s+/g, ' '), /bit0 bit1 bit2 /)
    await t.waitFor((x) => x.includes('bit59') && ready(x), 'the whole answer', 30_000)
  })

  it('the model picker changes profile, model and effort with a PATCH the daemon holds, and the next turn uses it', async () => {
    // A second profile to choose, on the same fake upstream.
    const got = await s.d.request({ path: '/settings?group=providers' })
    const fake = got.json().settings.profiles.fake
    const patched = await s.d.request({
      method: 'PATCH',
      path: '/settings?group=providers',
      headers: { 'content-type': 'application/merge-patch+json', 'if-match': String(got.headers.etag) },
      body: JSON.stringify({
        profiles: {
          seat: { extension: 'chatgpt' },
          spare: {
            extension: 'openai-compatible',
            endpoint: fake.endpoint,
            protocol: 'responses',
            model: 'spare-default',
          },
        },
      }),
    })
    assert.equal(patched.status, 200, patched.text())

    const t = open()
    await t.waitFor(ready, 'the prompt')
    t.type('/model')
    t.keys('Enter')
    let screen = await t.waitFor((x) => /^Profile/m.test(x) && x.includes('spare'), 'the profiles')
    assert.match(screen, /fake {2}openai-compatible/)
    assert.match(screen, /spare {2}openai-compatible/)
    assert.match(screen, /seat {2}chatgpt {2}signed out/, 'the account state of an extension that signs in')
    t.type('spare')
    await t.waitFor((x) => /› spare/.test(x), 'the profile filtered')
    t.keys('Enter')
    await t.waitFor((x) => /^Model for spare/m.test(x), 'the models of the profile')
    t.type('picked-model')
    await t.waitFor((x) => x.includes('use "picked-model" (a model id)'), 'the manual id offered')
    t.keys('Enter')
    await t.waitFor((x) => /^Effort for picked-model/m.test(x), 'the efforts')
    t.type('high')
    await t.waitFor((x) => /› high/.test(x), 'high chosen')
    t.keys('Enter')
    screen = await t.waitFor((x) => /spare · picked-model · high/.test(x) && ready(x), 'the status line')

    const { body } = await s.d.client.call('sessions.list', { query: { scope: 'all', limit: 200 } })
    const chosen = body.items.filter((x) => x.model === 'picked-model')
    assert.equal(chosen.length, 1)
    const sessionId = chosen[0].id
    const session = (await read(sessionId)).body
    assert.equal(session.provider_profile, 'spare')
    assert.equal(session.model, 'picked-model')
    assert.equal(session.effort, 'high')

    const before = s.upstream.requests.length
    t.type('which model')
    t.keys('Enter')
    await waitSession(s.d, sessionId, (x) => idle(x) && x.input_order === 1)
    const sent = s.upstream.requests.slice(before)
    assert.equal(sent.length, 1)
    assert.equal(sent[0].body.model, 'picked-model')
  })
})
