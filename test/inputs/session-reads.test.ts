// What a session read shows once turns have run: the history it cuts (by tail or by the
// 1 MiB JSON limit) continues through `older`; pages of the history, and of the session
// list, end early within the limit and their continuations cover the rest; the preview says
// when it is cut; the first exchange names the session; the catalogue gives the context window.
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { v7 as uuidv7 } from 'uuid'
import { createSession, openSse } from '../streams/sse-client.ts'
import { getSession, idle, message, putInput, type Setup, startWithUpstream, waitSession } from './helpers.ts'

const MiB = 1024 * 1024
/** An answer whose inline JSON is about 98 KB: 16,384 control characters, six bytes each. */
const HEAVY = '\u0001'.repeat(20_000)

async function turn(s: Setup, sid: string, text: string, answer: string[]): Promise<any> {
  s.upstream.enqueue({ text: answer })
  const res = await putInput(s.d, sid, message(text))
  assert.equal(res.status, 202, res.text())
  return waitSession(
    s.d,
    sid,
    (x) => idle(x) && x.latest_answer?.run_id !== undefined && x.status.run_id === null,
  )
}

async function getJson(s: Setup, path: string): Promise<{ body: any; bytes: number }> {
  const res = await s.d.request({ path })
  assert.equal(res.status, 200, `${path}: ${res.text()}`)
  return { body: res.json(), bytes: res.body.length }
}

describe('session reads', () => {
  let s: Setup
  before(async () => {
    s = await startWithUpstream({ profile: {} })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })

  it('bounds reads and history pages to 1 MiB; older continues what was cut', async () => {
    const sid = await createSession(s.d)
    const turns = 12
    for (let i = 1; i <= turns; i++) {
      await turn(s, sid, `question ${i}`, [HEAVY])
      await waitSession(s.d, sid, (x) => x.history.high_water === 2 * i)
    }
    const read = await getJson(s, `/sessions/${sid}?tail=200`)
    assert.ok(read.bytes <= MiB, `a read of ${read.bytes} bytes`)
    const items = read.body.history.items
    assert.ok(items.length > 0 && items.length < 2 * turns, `${items.length} entries shown`)
    assert.equal(items.at(-1).position, 2 * turns, 'the newest entries are shown')
    assert.equal(read.body.history.newer, null)
    assert.notEqual(read.body.history.older, null, 'what the limit cut continues through older')

    // The stream's snapshot keeps as many of the newest entries as fit, like the read.
    const stream = openSse(s.d, `/sessions/${sid}?tail=200`)
    try {
      const snap = await stream.next()
      assert.equal(snap?.event, 'snapshot')
      const frame = Buffer.byteLength(`id: ${snap?.id}\nevent: snapshot\ndata: ${snap?.data}\n\n`)
      assert.ok(frame <= MiB, `a snapshot of ${frame} bytes`)
      const history = JSON.parse(snap?.data as string).session.history
      assert.equal(history.items.at(-1).position, 2 * turns)
      assert.ok(history.items.length >= items.length - 1, `${history.items.length} entries in the snapshot`)
      assert.notEqual(history.older, null)
    } finally {
      stream.destroy()
    }

    // Following older, then each page's older, reaches entry 1 with no gap and no repeat.
    const seen: number[] = items.map((e: any) => e.position)
    let older = read.body.history.older
    while (older !== null) {
      const page = await getJson(s, `/sessions/${sid}/history?next=${encodeURIComponent(older)}`)
      assert.ok(page.bytes <= MiB, `a history page of ${page.bytes} bytes`)
      seen.unshift(...page.body.items.map((e: any) => e.position))
      older = page.body.older
    }
    assert.deepEqual(
      seen,
      Array.from({ length: 2 * turns }, (_, i) => i + 1),
    )

    // A history page asked for 200 entries ends early too; newer pages forward from its start.
    const newest = await getJson(s, `/sessions/${sid}/history?limit=200`)
    assert.ok(newest.bytes <= MiB, `a history page of ${newest.bytes} bytes`)
    assert.ok(newest.body.items.length < 2 * turns)
    assert.notEqual(newest.body.older, null)
    const forward = await getJson(s, `/sessions/${sid}/history?after=0&limit=200`)
    assert.ok(forward.bytes <= MiB, `a history page of ${forward.bytes} bytes`)
    assert.equal(forward.body.items[0].position, 1)
    assert.notEqual(forward.body.newer, null, 'a forward page cut by the limit continues through newer')
    // Pages keep display groups whole: a turn's question and answer stay together.
    const groups = forward.body.items.map((e: any) => e.group)
    const cutGroup = groups.at(-1)
    const next = await getJson(s, `/sessions/${sid}/history?next=${encodeURIComponent(forward.body.newer)}`)
    assert.notEqual(next.body.items[0].group, cutGroup)

    // The whole answer is read through its content pages.
    const answer = items.at(-1)
    assert.equal(answer.content.truncated, true)
    let text = ''
    let path: string | null = `/sessions/${sid}/history/${answer.id}`
    while (path !== null) {
      const piece: { body: any; bytes: number } = await getJson(s, path)
      text += piece.body.text
      path = piece.body.next === null ? null : `/sessions/${sid}/history/${answer.id}?next=${piece.body.next}`
    }
    assert.equal(text, HEAVY)
  })

  it('pages active output within 1 MiB of JSON, however much the text escapes', async () => {
    const sid = await createSession(s.d)
    const text = '\u0002'.repeat(250_000) // 250,000 UTF-8 bytes, 1.5 MB of JSON
    s.upstream.enqueue({ text: [text, 'never'], mode: 'stall', after: 1 })
    await putInput(s.d, sid, message('go'))
    const running = await waitSession(s.d, sid, (x) =>
      x.active_output.some((o: any) => o.utf8_bytes >= 250_000),
    )
    const out = running.active_output.find((o: any) => o.kind === 'text')
    let read = ''
    let pages = 0
    let next: string | null = null
    do {
      const page: { body: any; bytes: number } = await getJson(
        s,
        `${out.url}?snapshot=${encodeURIComponent(out.snapshot)}${next ? `&next=${encodeURIComponent(next)}` : ''}`,
      )
      assert.ok(page.bytes <= MiB, `a page of ${page.bytes} bytes`)
      read += page.body.text
      next = page.body.next
      pages++
    } while (next !== null)
    assert.equal(read, text)
    assert.ok(pages > 1)
    const stop = await s.d.request({
      method: 'POST',
      path: `/sessions/${sid}/interrupt`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ run_id: running.status.run_id, through_input_order: 1 }),
    })
    assert.equal(stop.status, 200, stop.text())
    await waitSession(s.d, sid, idle)
  })

  it('bounds a page of the session list to 1 MiB; next continues it', async () => {
    // Long workspace paths of control characters: ~50 KB of JSON per summary.
    const parts = Array.from({ length: 14 }, (_, i) => `${String.fromCharCode(1 + i)}`.repeat(250))
    const ws = join(s.d.home, ...parts)
    mkdirSync(ws, { recursive: true })
    const made = new Set<string>()
    for (let i = 0; i < 40; i++) made.add(await createSession(s.d, { kind: 'new', workspace: ws }))
    const listed: string[] = []
    let path: string | null = `/sessions?workspace=${encodeURIComponent(ws)}&limit=200`
    let pages = 0
    while (path !== null) {
      const page: { body: any; bytes: number } = await getJson(s, path)
      assert.ok(page.bytes <= MiB, `a list page of ${page.bytes} bytes`)
      listed.push(...page.body.items.map((x: any) => x.id))
      pages++
      path =
        page.body.next === null
          ? null
          : `/sessions?workspace=${encodeURIComponent(ws)}&limit=200&next=${page.body.next}`
    }
    assert.ok(pages > 1, 'the list needed more than one page')
    assert.deepEqual(new Set(listed), made)
    assert.equal(listed.length, made.size, 'no session listed twice')
  })

  it('older is set when tail cuts the history, null when nothing is cut', async () => {
    const sid = await createSession(s.d)
    await turn(s, sid, 'one', ['first answer'])
    await turn(s, sid, 'two', ['second answer'])
    const all = await getSession(s.d, sid)
    assert.equal(all.history.items.length, 4)
    assert.equal(all.history.older, null)
    assert.equal(all.history.newer, null)
    const cut = (await getJson(s, `/sessions/${sid}?tail=1`)).body
    assert.deepEqual(
      cut.history.items.map((e: any) => e.position),
      [4],
    )
    const rest = await getJson(s, `/sessions/${sid}/history?next=${encodeURIComponent(cut.history.older)}`)
    assert.deepEqual(
      rest.body.items.map((e: any) => e.position),
      [1, 2, 3],
    )
    // The stream's snapshot says the same.
    const stream = openSse(s.d, `/sessions/${sid}?tail=1`)
    try {
      const snap = await stream.next()
      assert.equal(snap?.event, 'snapshot')
      const history = JSON.parse(snap?.data as string).session.history
      assert.deepEqual(
        history.items.map((e: any) => e.position),
        [4],
      )
      const older = await getJson(s, `/sessions/${sid}/history?next=${encodeURIComponent(history.older)}`)
      assert.deepEqual(
        older.body.items.map((e: any) => e.position),
        [1, 2, 3],
      )
    } finally {
      stream.destroy()
    }
    const none = (await getJson(s, `/sessions/${sid}?tail=0`)).body
    assert.deepEqual(none.history.items, [])
    assert.notEqual(none.history.older, null, 'tail=0 still points at the history')
  })

  it('marks a cut preview as truncated', async () => {
    const sid = await createSession(s.d)
    const short = await turn(s, sid, 'hi', ['short answer'])
    assert.deepEqual(short.preview, { text: 'short answer', transcript_count: 2, truncated: false })
    const long = await turn(s, sid, 'more', ['a'.repeat(150), '😀'.repeat(100)])
    assert.equal(long.preview.truncated, true)
    assert.equal([...long.preview.text].length, 200)
    assert.ok(long.preview.text.isWellFormed(), 'no surrogate pair is split')
    const listed = (await getJson(s, '/sessions?limit=200')).body.items.find((x: any) => x.id === sid)
    assert.equal(listed.preview.truncated, true)
    // A fork of the whole history shows the same preview, cut the same way.
    const fork = await createSession(s.d, { kind: 'forked', source_id: sid })
    assert.deepEqual((await getSession(s.d, fork)).preview, long.preview)
  })

  it('names a session from its first exchange, without a model call', async () => {
    const sid = await createSession(s.d)
    assert.equal((await getSession(s.d, sid)).automatic_name, '')
    const before = s.upstream.requests.length
    const first = await turn(s, sid, '\n   Plan the   quarterly\treport\nwith the numbers from March', [
      'Sure.',
    ])
    assert.equal(first.automatic_name, 'Plan the quarterly report')
    assert.equal(s.upstream.requests.length, before + 1, 'one request: the turn itself')
    const second = await turn(s, sid, 'Something else entirely', ['OK.'])
    assert.equal(second.automatic_name, 'Plan the quarterly report', 'later exchanges keep the name')
    const long = await createSession(s.d)
    const named = await turn(s, long, `${'word '.repeat(40)}end`, ['OK.'])
    assert.ok([...named.automatic_name].length <= 60)
    assert.match(named.automatic_name, /^word( word)*…$/)
    // A fork that copies the first exchange keeps the name; one that copies nothing has none.
    const fork = await createSession(s.d, { kind: 'forked', source_id: sid, through_entry: 2 })
    assert.equal((await getSession(s.d, fork)).automatic_name, 'Plan the quarterly report')
    const empty = await createSession(s.d, { kind: 'forked', source_id: sid, through_entry: 0 })
    assert.equal((await getSession(s.d, empty)).automatic_name, '')
    // The name is searchable like any name.
    const found = (await getJson(s, '/sessions?search=quarterly%20report')).body.items.map((x: any) => x.id)
    assert.ok(found.includes(sid))
  })
})

describe('context window from the model catalogue', () => {
  let s: Setup
  before(async () => {
    s = await startWithUpstream()
    // A profile on a host the catalogue knows (never called: reads only).
    const home = s.d.home
    await s.d.stop()
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        providers: {
          default_profile: 'fake',
          profiles: {
            fake: { endpoint: `${s.upstream.url}/v1`, protocol: 'responses', model: 'fake-model' },
            hosted: { endpoint: 'https://api.openai.com/v1', protocol: 'responses', model: 'gpt-4o' },
          },
        },
      }),
    )
    s = { ...s, d: await (await import('../helpers/daemon.ts')).startDaemon({ home }) }
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })

  it('shows the window the catalogue knows, null when it knows none', async () => {
    const known = await createSession(s.d, { kind: 'new', workspace: s.d.home, provider_profile: 'hosted' })
    assert.equal((await getSession(s.d, known)).usage.context_window_tokens, 128000)
    const created = await s.d.request({
      method: 'PUT',
      path: `/sessions/${uuidv7()}`,
      headers: { 'content-type': 'application/json', 'if-none-match': '*' },
      body: JSON.stringify({
        kind: 'new',
        workspace: s.d.home,
        provider_profile: 'hosted',
        model: 'gpt-4o-mini',
      }),
    })
    assert.equal(created.status, 201)
    assert.equal(created.json().usage.context_window_tokens, 128000)
    const unknown = await createSession(s.d)
    assert.equal((await getSession(s.d, unknown)).usage.context_window_tokens, null)
    // The stream's snapshot shows the same.
    const stream = openSse(s.d, `/sessions/${known}?tail=0`)
    try {
      const snap = await stream.next()
      assert.equal(snap?.event, 'snapshot')
      assert.equal(JSON.parse(snap?.data as string).session.usage.context_window_tokens, 128000)
    } finally {
      stream.destroy()
    }
  })
})
