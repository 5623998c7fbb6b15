// A session's provider profile and effort are checked where they are sent, with the schemas
// settings use: a bad value is the same problem at creation or change as in a settings
// PATCH, instead of a session that is created and then fails at its first run.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { v7 as uuidv7 } from 'uuid'
import { type RawResponse, startDaemon, type TestDaemon } from '../helpers/daemon.ts'
import { patchFresh } from '../settings/helpers.ts'

const JSON_TYPE = 'application/json'
const MERGE = 'application/merge-patch+json'
const BAD_EFFORT = 'huge'
const BAD_PROFILE = 'bad name!'

function problemOf(res: RawResponse): { status: number; code: string; detail: string } {
  assert.equal(res.headers['content-type'], 'application/problem+json', res.text())
  const body = res.json()
  return { status: res.status, code: body.code, detail: body.detail }
}

describe('profile name and effort at session creation and change', () => {
  let d: TestDaemon
  const create = (body: Record<string, unknown>, id = uuidv7()) =>
    d.request({
      method: 'PUT',
      path: `/sessions/${id}`,
      headers: { 'content-type': JSON_TYPE, 'if-none-match': '*' },
      body: JSON.stringify(body),
    })
  const created = async (body: Record<string, unknown>) => {
    const res = await create(body)
    assert.equal(res.status, 201, res.text())
    return res.json()
  }
  const change = async (id: string, body: unknown) => {
    const config = await d.request({ path: `/sessions/${id}?view=configuration` })
    return d.request({
      method: 'PATCH',
      path: `/sessions/${id}?view=configuration`,
      headers: { 'content-type': MERGE, 'if-match': String(config.headers.etag) },
      body: JSON.stringify(body),
    })
  }
  /** The problem settings answer for a profile with this effort, or saved under this name. */
  const settingsProblem = async (name: string, effort: string | null) =>
    problemOf(
      await patchFresh(d, 'providers', {
        profiles: {
          [name]: { endpoint: 'http://127.0.0.1:9/v1', protocol: 'responses', model: 'm', effort },
        },
      }),
    )

  before(async () => {
    d = await startDaemon()
    const saved = await patchFresh(d, 'providers', {
      default_profile: 'main',
      profiles: { main: { endpoint: 'http://127.0.0.1:9/v1', protocol: 'responses', model: 'model-a' } },
    })
    assert.equal(saved.status, 200, saved.text())
  })
  after(() => d.stop())

  it('a bad effort is refused at creation with the problem settings give it', async () => {
    const fromSettings = await settingsProblem('main', BAD_EFFORT)
    const res = await create({ kind: 'new', workspace: d.home, effort: BAD_EFFORT })
    const p = problemOf(res)
    assert.equal(p.status, fromSettings.status)
    assert.equal(p.code, fromSettings.code)
    assert.equal(p.status, 400)
    assert.equal(p.code, 'invalid_request')
    assert.match(p.detail, /\/effort/)
  })

  it('a profile name settings could not save is refused at creation with the same problem', async () => {
    const fromSettings = await settingsProblem(BAD_PROFILE, null)
    const res = await create({ kind: 'new', workspace: d.home, provider_profile: BAD_PROFILE })
    const p = problemOf(res)
    assert.equal(p.status, fromSettings.status)
    assert.equal(p.code, fromSettings.code)
    assert.equal(p.code, 'invalid_request')
    assert.match(p.detail, /\/provider_profile/)
  })

  it('forks and children check the same fields', async () => {
    const source = await created({ kind: 'new', workspace: d.home })
    for (const kind of [
      { kind: 'forked', source_id: source.id },
      { kind: 'child', parent_id: source.id },
    ]) {
      assert.equal(problemOf(await create({ ...kind, effort: BAD_EFFORT })).code, 'invalid_request')
      assert.equal(
        problemOf(await create({ ...kind, provider_profile: BAD_PROFILE })).code,
        'invalid_request',
      )
    }
  })

  it('a change of profile or effort is checked the same way', async () => {
    const s = await created({ kind: 'new', workspace: d.home })
    for (const body of [{ effort: BAD_EFFORT }, { provider_profile: BAD_PROFILE }]) {
      const p = problemOf(await change(s.id, body))
      assert.equal(p.status, 400)
      assert.equal(p.code, 'invalid_request')
    }
    const ok = await change(s.id, { effort: 'low' })
    assert.equal(ok.status, 200, ok.text())
    assert.equal(ok.json().resource.value.effort, 'low')
  })

  it('a valid profile name and effort still create', async () => {
    const s = await created({ kind: 'new', workspace: d.home, provider_profile: 'main', effort: 'high' })
    assert.equal(s.provider_profile, 'main')
    assert.equal(s.effort, 'high')
    const cleared = await created({ kind: 'new', workspace: d.home, effort: null })
    assert.equal(cleared.effort, null)
  })
})
