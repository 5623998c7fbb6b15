// The web client's screens' pure parts: a settings draft as its merge patch, the context
// picture's blocks, work items as an outline, quota readings grouped by account and stale.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { isStale } from '../../src/client/quota-trail.ts'
import { outlineRows } from '../../src/client/work-view.ts'
import { blocksOf, type Summary } from '../../src/web/app/screens/context/context-picture.ts'
import { byAccount } from '../../src/web/app/screens/quota/quota-readings.ts'
import {
  isSavedSecret,
  patchOf,
  valueFromText,
  withEdit,
  withoutEdit,
} from '../../src/web/app/screens/settings/settings-draft.ts'

describe('the web screens: settings drafts', () => {
  it('edits become a nested merge patch; a secret removed is null; an undone edit is gone', () => {
    let d = withEdit(new Map(), ['profiles', 'fake', 'model'], 'm2')
    d = withEdit(d, ['profiles', 'fake', 'api_key'], null)
    d = withEdit(d, ['default_profile'], 'fake')
    d = withoutEdit(d, ['default_profile'])
    assert.deepEqual(patchOf(d), { profiles: { fake: { model: 'm2', api_key: null } } })
  })
  it('reads text back as the kind of value it replaces', () => {
    assert.equal(valueFromText('12', 3), 12)
    assert.equal(valueFromText('', 3), null)
    assert.deepEqual(valueFromText('["a"]', []), ['a'])
    assert.equal(valueFromText('[oops', []), '[oops', 'left for the daemon to refuse')
    assert.equal(valueFromText('', null), null)
    assert.equal(isSavedSecret({ saved: true }), true)
    assert.equal(isSavedSecret({ saved: true, other: 1 }), false)
  })
})

describe('the web screens: the context picture', () => {
  const summary = (window: number | null) =>
    ({
      window_tokens: window,
      estimated_tokens: 1000,
      sections: [
        {
          id: 'instructions',
          title: 'System',
          tokens: 400,
          system_parts: { own: 800, files: 0, skills: 0, environment: 800 },
        },
        { id: 'tools', title: 'Tools', tokens: 500 },
        { id: 'compaction', title: 'Summary', tokens: 0 },
        {
          id: 'history',
          title: 'Turns',
          tokens: 100,
          parts: { user: 30, assistant: 70, tool_results: 0, images: 0, framing: 0 },
        },
      ],
    }) as unknown as Summary
  it('splits sections into their parts, scaled to the section, and adds the free rest of a known window', () => {
    const { blocks } = blocksOf(summary(4000))
    assert.deepEqual(
      blocks.map((b) => [b.id, b.tokens, Math.round(b.percent * 100) / 100]),
      [
        ['instructions.own', 200, 5],
        ['instructions.environment', 200, 5],
        ['tools', 500, 12.5],
        ['history.user', 30, 0.75],
        ['history.assistant', 70, 1.75],
        ['free', 3000, 75],
      ],
    )
  })
  it('without a window, the blocks fill the bar', () => {
    const { blocks } = blocksOf(summary(null))
    assert.equal(blocks.at(-1)?.id, 'history.assistant')
    assert.equal(Math.round(blocks.reduce((n, b) => n + b.percent, 0)), 100)
  })
})

describe('the web screens: work items and quota', () => {
  const item = (id: string, parent: string | null) => ({
    id,
    workspace: '/w',
    title: id,
    notes: '',
    parent_id: parent,
    session_id: null,
    run_id: null,
    status: 'open' as const,
    revision: '1',
    created_at: '',
    updated_at: '',
  })
  it('puts children under their parent; an item whose parent is gone sits at the top', () => {
    const rows = outlineRows([item('a', null), item('b', 'a'), item('c', 'gone'), item('d', 'b')])
    assert.deepEqual(
      rows.map((r) => `${r.depth}${r.item.id}`),
      ['0a', '1b', '2d', '0c'],
    )
  })
  it('groups readings by account, shortest window first, a failed poll apart; stale by age or reset', () => {
    const now = Date.parse('2026-01-01T12:00:00Z')
    const r = (
      limit: string,
      window: number | null,
      observedMinAgo: number,
      reset: number | null = null,
    ) => ({
      account: 'a',
      provider: 'codex',
      plan: null,
      limit_id: limit,
      limit_label: null,
      used_percent: 1,
      window_label: null,
      window_seconds: window,
      reset_at_ms: reset,
      scope: null,
      status: null,
      error: null,
      observed_at: new Date(now - observedMinAgo * 60_000).toISOString(),
      source: 'poll' as const,
    })
    const [a] = byAccount([r('weekly', 604800, 1), r('session', 18000, 1), r('', null, 2)])
    assert.deepEqual(
      a.limits.map((x) => x.limit_id),
      ['session', 'weekly'],
    )
    assert.equal(a.failure?.limit_id, '')
    assert.equal(isStale(r('s', 1, 29), now), false)
    assert.equal(isStale(r('s', 1, 31), now), true)
    assert.equal(isStale(r('s', 1, 1, now - 1), now), true)
  })
})
