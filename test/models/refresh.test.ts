// `hearth models refresh` from a local HTTP server in the test, and a running daemon that
// answers from the refreshed cache without a restart. A download that is not a catalogue
// exits 1 and leaves the cache as it was.
import assert from 'node:assert/strict'
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { runCli, startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'

const model = (id: string, context: number) => ({
  id,
  name: id.toUpperCase(),
  tool_call: true,
  modalities: { input: ['text'], output: ['text'] },
  limit: { context, output: 1000 },
})

const GOOD = {
  openai: {
    id: 'openai',
    name: 'OpenAI',
    models: { 'zz-one': model('zz-one', 1000), 'aa-two': model('aa-two', 2000) },
  },
  acme: { id: 'acme', name: 'Acme', models: { 'rocket-1': model('rocket-1', 3000) } },
  bulk: {
    id: 'bulk',
    models: Object.fromEntries(
      Array.from({ length: 150 }, (_, i) => `m-${String(i).padStart(3, '0')}`).map((id) => [
        id,
        model(id, 1),
      ]),
    ),
  },
}
const GOOD_2 = {
  openai: { id: 'openai', name: 'OpenAI', models: { 'only-this': model('only-this', 4000) } },
}

/** Paths the test server answers, with status and body. */
const ROUTES: Record<string, [number, string]> = {
  '/good.json': [200, JSON.stringify(GOOD)],
  '/good-2.json': [200, JSON.stringify(GOOD_2)],
  '/array.json': [200, '[]'],
  '/empty.json': [200, '{}'],
  '/no-models.json': [200, JSON.stringify({ openai: { id: 'openai', name: 'OpenAI' } })],
  '/model-not-object.json': [200, JSON.stringify({ openai: { models: { a: 1 } } })],
  '/not-json': [200, '<html>hello</html>'],
  '/missing': [404, 'not found'],
}

describe('hearth models refresh', () => {
  let server: Server
  let base = ''
  let d: TestDaemon
  let home = ''
  const cache = () => join(home, 'cache', 'models.json')
  const models = async (q: string) => {
    const res = await d.request({ path: `/models?${q}` })
    assert.equal(res.status, 200, res.text())
    return res.json()
  }
  const refresh = (path: string, extra: string[] = ['--home', home], env: Record<string, string> = {}) =>
    runCli(['models', 'refresh', '--url', base + path, ...extra], env)

  before(async () => {
    server = createServer((req, res) => {
      const [status, body] = ROUTES[req.url ?? ''] ?? [404, 'not found']
      res.writeHead(status, { 'content-type': 'application/json' }).end(body)
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    home = tempHome()
    d = await startDaemon({ home })
  })
  after(async () => {
    await d.stop()
    server.close()
  })

  it('answers from the snapshot before any refresh', async () => {
    assert.equal(existsSync(cache()), false)
    const body = await models('provider=openai&model=gpt-5')
    assert.equal(body.source.kind, 'snapshot')
    assert.equal(body.items[0].listed, true)
  })

  it('saves a valid catalogue, and the running daemon uses it at once', async () => {
    const r = await refresh('/good.json')
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout, `saved 3 providers, 153 models to ${cache()}\n`)
    assert.deepEqual(JSON.parse(readFileSync(cache(), 'utf8')), GOOD)

    const body = await models('provider=openai')
    assert.equal(body.source.kind, 'cache')
    assert.equal(body.source.updated_at, new Date(statSync(cache()).mtimeMs).toISOString())
    assert.deepEqual(
      body.items.map((m: { id: string; context_window: number }) => [m.id, m.context_window]),
      [
        ['aa-two', 2000],
        ['zz-one', 1000],
      ],
    )
    // A provider only the refreshed catalogue knows; a fact it leaves out is null.
    const acme = await models('provider=acme&model=rocket-1')
    assert.equal(acme.items[0].cap_key, 'acme/rocket-1')
    assert.equal(acme.items[0].reasoning, null)
    // gpt-5 is in the snapshot but not in this catalogue: now a manual row.
    assert.equal((await models('provider=openai&model=gpt-5')).items[0].listed, false)
  })

  it('pages 100 rows by default', async () => {
    const first = await models('provider=bulk')
    assert.equal(first.items.length, 100)
    assert.equal(first.items[99].id, 'm-099')
    const second = await models(`provider=bulk&next=${first.next}`)
    assert.equal(second.items.length, 50)
    assert.equal(second.items[0].id, 'm-100')
    assert.equal(second.next, null)
  })

  for (const path of [
    '/array.json',
    '/empty.json',
    '/no-models.json',
    '/model-not-object.json',
    '/not-json',
    '/missing',
  ]) {
    it(`exits 1 for ${path} and keeps the old cache`, async () => {
      const before = readFileSync(cache())
      const r = await refresh(path)
      assert.equal(r.code, 1, r.stdout)
      assert.match(r.stderr, /^hearth: /)
      assert.match(r.stderr, path === '/missing' ? /HTTP 404/ : /model cache is unchanged/)
      assert.equal(r.stdout, '')
      assert.deepEqual(readFileSync(cache()), before)
      assert.equal((await models('provider=acme')).source.kind, 'cache')
    })
  }

  it('exits 1 when nothing listens at the URL', async () => {
    const r = await runCli(['models', 'refresh', '--url', 'http://127.0.0.1:9/api.json', '--home', home])
    assert.equal(r.code, 1)
    assert.match(r.stderr, /cannot download/)
  })

  it('picks up a second refresh without a restart', async () => {
    const r = await refresh('/good-2.json')
    assert.equal(r.code, 0, r.stderr)
    const body = await models('provider=openai')
    assert.deepEqual(
      body.items.map((m: { id: string }) => m.id),
      ['only-this'],
    )
    const gone = await d.request({ path: '/models?provider=acme' })
    assert.equal(gone.status, 404)
  })

  it('falls back to the snapshot while the cache file is not a catalogue', async () => {
    writeFileSync(cache(), '{"broken":')
    assert.equal((await models('provider=openai&model=gpt-5')).source.kind, 'snapshot')
    writeFileSync(cache(), JSON.stringify(GOOD))
    assert.equal((await models('provider=acme')).source.kind, 'cache')
  })

  it('finds the home through HEARTH_HOME when --home is not given', async () => {
    const other = tempHome()
    const r = await refresh('/good.json', [], { HEARTH_HOME: other })
    assert.equal(r.code, 0, r.stderr)
    assert.ok(existsSync(join(other, 'cache', 'models.json')))
  })

  it('refuses a bad command line with exit 2', async () => {
    for (const args of [
      ['models'],
      ['models', 'fetch'],
      ['models', 'refresh', 'extra'],
      ['models', 'refresh', '--url', 'ftp://example.com/api.json'],
      ['models', 'refresh', '--url', 'not a url'],
      ['models', 'refresh', '--bogus'],
    ]) {
      const r = await runCli([...args, '--home', home])
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`)
    }
  })
})
