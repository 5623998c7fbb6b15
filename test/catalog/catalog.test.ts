// GET /sessions/{id}/catalog: five sections in a fixed order, paged across them with a
// continuation that names its section; bad queries are problems with stable codes; reading
// starts no kernel and no MCP server and reloads nothing; no secret appears; revisions
// follow the files.
import assert from 'node:assert/strict'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type AgentSetup, getSession, newSession, startAgent } from '../tools/agent-helpers.ts'
import { writeCommand, writeMcpSettings, writeSkill } from './helpers.ts'

const SECRET = 'sekrit-bearer-7c1f0e'
const QUERY_SECRET = 'query-token-93ab'
const ENV_SECRET = 'env-secret-55d2'

async function page(s: AgentSetup, sid: string, query = ''): Promise<any> {
  const r = await s.d.request({ path: `/sessions/${sid}/catalog${query}` })
  assert.equal(r.status, 200, r.text())
  return r.json()
}

async function all(s: AgentSetup, sid: string, query: string): Promise<any[]> {
  const pages: any[] = []
  let next: string | null = null
  do {
    const sep = query ? '&' : '?'
    const p = await page(s, sid, `${query}${next ? `${sep}next=${encodeURIComponent(next)}` : ''}`)
    pages.push(p)
    next = p.next
  } while (next && pages.length < 100)
  return pages
}

describe('catalog', () => {
  let s: AgentSetup
  let sid: string
  let marker: string
  before(async () => {
    s = await startAgent()
    const wsSkills = join(s.workspace, '.hearth', 'skills')
    for (let i = 0; i < 30; i++)
      writeSkill(wsSkills, `skill-${String(i).padStart(2, '0')}`, `Skill number ${i}`)
    for (let i = 0; i < 3; i++) writeSkill(join(s.home, 'skills'), `home-${i}`, `Home skill ${i}`)
    for (let i = 0; i < 25; i++)
      writeCommand(
        join(s.workspace, '.hearth', 'commands'),
        `cmd-${String(i).padStart(2, '0')}`,
        `Do ${i}: $ARGUMENTS\n`,
      )
    writeCommand(
      join(s.workspace, '.hearth', 'commands'),
      'review',
      '---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $ARGUMENTS carefully.\n',
    )
    writeFileSync(join(s.workspace, 'AGENTS.md'), 'Be brief.\n')
    marker = join(s.workspace, 'mcp-started')
    writeMcpSettings(
      s.home,
      {
        local: { command: 'sh', args: ['-c', `touch ${marker}; sleep 60`], description: 'A local server' },
        web: { url: `http://user:pw@127.0.0.1:9/mcp?token=${QUERY_SECRET}` },
        off: { command: 'true', enabled: false },
      },
      { local: { env: { TOKEN: ENV_SECRET } }, web: { bearerToken: SECRET, headers: { 'X-Key': SECRET } } },
    )
    sid = await newSession(s)
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })

  it('GET /server advertises catalog 1', async () => {
    const r = await s.d.request({ path: '/server' })
    assert.equal(r.json().capabilities.catalog, 1)
  })

  it('pages through all sections in order; each continuation names its section', async () => {
    const pages = await all(s, sid, '?limit=7')
    const items = pages.flatMap((p) => p.items)
    const kinds = items.map((c) => c.kind)
    const order = ['extensions', 'skills', 'instructions', 'mcp', 'commands']
    for (let i = 1; i < kinds.length; i++) assert.ok(order.indexOf(kinds[i - 1]) <= order.indexOf(kinds[i]))
    const count = (k: string) => kinds.filter((x) => x === k).length
    assert.equal(count('extensions'), 10)
    assert.equal(count('skills'), 33)
    assert.equal(count('instructions'), 1)
    assert.equal(count('mcp'), 3)
    assert.equal(count('commands'), 26)
    assert.ok(pages.every((p, i) => p.items.length === 7 || i === pages.length - 1))
    // A page crossing a boundary holds two sections and names both in its revision.
    const crossing = pages.find((p) => p.sections.length > 1)
    assert.ok(crossing)
    assert.match(
      crossing.catalog_revision,
      new RegExp(`^${crossing.sections.map((x: any) => x.kind).join('\\+')}:`),
    )
    for (const p of pages.slice(0, -1)) {
      assert.equal(p.next_kind, pages[pages.indexOf(p) + 1].items[0].kind)
      const payload = JSON.parse(Buffer.from(p.next.split('.')[0], 'base64url').toString('utf8'))
      assert.equal(payload.k.section, p.next_kind)
    }
    assert.equal(pages.at(-1).next, null)
    assert.equal(pages.at(-1).next_kind, null)
    // Every candidate has a revision; skill and command fields as a client needs them.
    assert.ok(items.every((c) => typeof c.revision === 'string' && c.revision.length > 10))
    const review = items.find((c) => c.kind === 'commands' && c.name === 'review')
    assert.equal(review.argument_hint, 'FILE')
    assert.equal(review.description, 'Review a file')
    assert.equal(review.template, 'Review $ARGUMENTS carefully.\n')
    const home0 = items.find((c) => c.kind === 'skills' && c.name === 'home-0')
    assert.equal(home0.source, 'home')
    assert.equal(home0.selection.effective, true)
    const ext = (n: string) => items.find((c) => c.kind === 'extensions' && c.name === n)
    assert.deepEqual([ext('models').implemented, ext('work').implemented], [true, false])
    assert.deepEqual(ext('chatgpt').requires, ['openai-compatible'])
    const off = items.find((c) => c.kind === 'mcp' && c.name === 'off')
    assert.deepEqual([off.enabled, off.selection.default, off.selection.effective], [false, false, false])
  })

  it('kind picks one section; its continuation stays in it', async () => {
    const pages = await all(s, sid, '?kind=skills&limit=10')
    assert.equal(pages.length, 4)
    assert.ok(pages.every((p) => p.kind === 'skills' && p.items.every((c: any) => c.kind === 'skills')))
    assert.ok(pages.slice(0, -1).every((p) => p.next_kind === 'skills'))
    assert.ok(pages.every((p) => p.catalog_revision.startsWith('skills:')))
    assert.equal(pages.flatMap((p) => p.items).length, 33)
  })

  it('bad kind, limit and next are problems with stable codes', async () => {
    const bad = async (q: string, code: string) => {
      const r = await s.d.request({ path: `/sessions/${sid}/catalog${q}` })
      assert.equal(r.status, 400, q)
      assert.equal(r.headers['content-type'], 'application/problem+json')
      assert.equal(r.json().code, code, q)
    }
    await bad('?kind=plugins', 'invalid_parameter')
    await bad('?limit=0', 'invalid_parameter')
    await bad('?limit=201', 'invalid_parameter')
    await bad('?next=forged.token', 'invalid_continuation')
    await bad('?sort=name', 'unknown_parameter')
    const first = await page(s, sid, '?kind=skills&limit=2')
    await bad(`?kind=mcp&next=${encodeURIComponent(first.next)}`, 'invalid_continuation')
    const missing = await s.d.request({ path: '/sessions/0190a000-0000-7000-8000-000000000000/catalog' })
    assert.equal(missing.status, 404)
    assert.equal(missing.json().code, 'session_not_found')
  })

  it('never shows a secret', async () => {
    const text = JSON.stringify((await all(s, sid, '?limit=200')).map((p) => p.items))
    for (const secret of [SECRET, QUERY_SECRET, ENV_SECRET, 'user:pw', 'touch'])
      assert.ok(!text.includes(secret), secret)
    const items = (await page(s, sid, '?kind=mcp')).items
    const web = items.find((c: any) => c.name === 'web')
    assert.equal(web.url, 'http://127.0.0.1:9/mcp')
    assert.deepEqual(web.secrets, ['bearerToken', 'headers'])
    assert.equal(items.find((c: any) => c.name === 'local').command, 'sh')
  })

  it('reading starts no kernel or server and reloads nothing', async () => {
    const before = await getSession(s.d, sid)
    await all(s, sid, '?limit=3')
    const after = await getSession(s.d, sid)
    assert.equal(after.kernel.state, 'none')
    assert.equal(after.composition.desired_revision, before.composition.desired_revision)
    assert.equal(after.composition.loaded_revision, before.composition.loaded_revision)
    assert.equal(after.cursor.sequence, before.cursor.sequence, 'no event was appended')
    assert.equal(existsSync(marker), false, 'the stdio server never ran')
  })

  it('revisions follow the files: a changed skill changes its revision and the section’s', async () => {
    const one = await page(s, sid, '?kind=skills&limit=200')
    writeSkill(join(s.workspace, '.hearth', 'skills'), 'skill-05', 'Skill number 5', 'a new body\n')
    const two = await page(s, sid, '?kind=skills&limit=200')
    const rev = (p: any, n: string) => p.items.find((c: any) => c.name === n).revision
    assert.notEqual(rev(one, 'skill-05'), rev(two, 'skill-05'))
    assert.equal(rev(one, 'skill-06'), rev(two, 'skill-06'))
    assert.notEqual(one.catalog_revision, two.catalog_revision)
    const three = await page(s, sid, '?kind=skills&limit=200')
    assert.equal(two.catalog_revision, three.catalog_revision)
  })

  it('shows the session’s selection per candidate: an instruction file turned off', async () => {
    const [file] = (await page(s, sid, '?kind=instructions')).items
    assert.equal(file.state, 'loaded')
    const etag = (await s.d.request({ path: `/sessions/${sid}?view=configuration` })).json().etag
    const r = await s.d.request({
      method: 'PATCH',
      path: `/sessions/${sid}?view=configuration`,
      headers: { 'content-type': 'application/merge-patch+json', 'if-match': etag },
      body: JSON.stringify({ selection: { instructions: { [file.path]: false } } }),
    })
    assert.equal(r.status, 200, r.text())
    const [after] = (await page(s, sid, '?kind=instructions')).items
    assert.equal(after.state, 'off')
    assert.deepEqual(after.selection, { key: file.path, default: true, override: false, effective: false })
    assert.equal(after.revision, file.revision, 'the selection is not part of the revision')
    const read = await getSession(s.d, sid)
    assert.equal(read.selection.effective.instructions[file.path], false)
    assert.equal(read.instructions[0].state, 'off')
  })
})
