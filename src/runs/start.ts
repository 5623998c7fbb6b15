// Starting a run: every waiting input of the session is taken into one run. In one
// transaction each becomes a user entry of the history (images move with it), its delivery
// becomes `running`, and the session shows the run.
import { v7 as uuidv7 } from 'uuid'
import { type InputRow, pendingRows } from '../inputs/rows.ts'
import type { SessionsCore } from '../sessions/core.ts'
import { toHistoryEntry } from '../sessions/entries.ts'
import { indexSession } from '../sessions/search.ts'
import { nameFromExchange, previewOf } from '../sessions/summary-text.ts'
import { type TakenNote, takeNotes } from '../work/notes.ts'

export interface StartedRun {
  run_id: string
  input_ids: string[]
  through_order: number
  provider_profile: string
  model: string
  effort: string | null
}

/** A queued note (work/notes.ts) as a history entry of kind `note`. */
function addNoteEntry(core: SessionsCore, sessionId: string, note: TakenNote, position: number, grp: number) {
  const content = JSON.stringify({ text: note.text, source: note.source, queued_at: note.created_at })
  const row = { position, grp, kind: 'note', created_at: note.created_at, content }
  core
    .sql(
      'INSERT INTO entries (session_id, position, grp, kind, created_at, content) VALUES (?, ?, ?, ?, ?, ?)',
    )
    .run(sessionId, position, grp, 'note', note.created_at, content)
  return toHistoryEntry(row)
}

function addUserEntry(core: SessionsCore, input: InputRow, position: number, grp: number, at: string) {
  // Most messages have no images: their rows are not looked for.
  const images =
    input.image_count > 0
      ? (core
          .sql('SELECT idx, media_type, data FROM input_images WHERE input_id = ? ORDER BY idx')
          .all(input.id) as { idx: number; media_type: string; data: Buffer }[])
      : []
  const fields = images.map((img) => ({
    field: `image_${img.idx}`,
    media_type: img.media_type,
    bytes: img.data.length,
  }))
  const addImage = core.sql(
    'INSERT INTO entry_images (session_id, position, field, media_type, data) VALUES (?, ?, ?, ?, ?)',
  )
  for (const [i, img] of images.entries())
    addImage.run(input.session_id, position, fields[i].field, img.media_type, img.data)
  if (images.length > 0) core.sql('DELETE FROM input_images WHERE input_id = ?').run(input.id)
  const content = { text: input.text, images: fields, input_id: input.id, client_id: input.client_id }
  const row = { position, grp, kind: 'user', created_at: at, content: JSON.stringify(content) }
  core
    .sql(
      'INSERT INTO entries (session_id, position, grp, kind, created_at, content) VALUES (?, ?, ?, ?, ?, ?)',
    )
    .run(input.session_id, position, grp, 'user', at, row.content)
  return toHistoryEntry(row)
}

/** Takes the waiting inputs into a new run; undefined when there is nothing to run. */
export function startRun(core: SessionsCore, sessionId: string): StartedRun | undefined {
  return core.transact((tx) => {
    const s = core.row(sessionId)
    if (!s || s.run_id !== null || s.phase === 'deleting') return undefined
    const family = core.sql('SELECT deleting FROM families WHERE root_id = ?').get(s.root_id) as
      | { deleting: string | null }
      | undefined
    if (family?.deleting != null) return undefined
    const inputs = pendingRows(core, sessionId)
    if (inputs.length === 0) {
      if (s.phase === 'queued') core.sql("UPDATE sessions SET phase = 'idle' WHERE id = ?").run(sessionId)
      return undefined
    }
    const runId = uuidv7()
    const { grp } = core
      .sql('SELECT COALESCE(MAX(grp), 0) + 1 AS grp FROM entries WHERE session_id = ?')
      .get(sessionId) as { grp: number }
    let position = s.transcript_count
    // Notes left for the session go just before the run's user messages (work/notes.ts).
    const notes = takeNotes((text) => core.sql(text), sessionId).map((note) =>
      addNoteEntry(core, sessionId, note, ++position, grp),
    )
    const users = inputs.map((input) => {
      position += 1
      const entry = addUserEntry(core, input, position, grp, tx.at)
      core
        .sql("UPDATE inputs SET delivery = 'running', transcript_position = ?, turn = ? WHERE id = ?")
        .run(position, runId, input.id)
      return entry
    })
    const entries = [...notes, ...users]
    const head = core.log.head(sessionId) as { generation: number; seq: number }
    const through = inputs.at(-1)?.acceptance_order as number
    core
      .sql(
        `INSERT INTO runs (id, session_id, grp, through_order, start_generation, start_seq, started_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(runId, sessionId, grp, through, head.generation, head.seq, tx.at)
    const preview = previewOf((inputs.at(-1) as InputRow).text)
    core
      .sql(
        `UPDATE sessions SET phase = 'running', run_id = ?, interrupt_requested = 0, transcript_count = ?,
           preview_text = ?, preview_truncated = ?, activity_ms = ?, loaded_revision = desired_revision WHERE id = ?`,
      )
      .run(runId, position, preview.text, Number(preview.truncated), tx.now, sessionId)
    // A session named already (every used one) keeps its name: nothing to compute.
    if (s.automatic_name === '') nameFromExchange(core, sessionId, (inputs[0] as InputRow).text)
    // A run resolves the profile and model as they are now: it runs the desired composition.
    indexSession(core, s)
    const inputIds = inputs.map((i) => i.id)
    tx.append(sessionId, 'run.started', { run_id: runId, input_ids: inputIds, group: grp })
    for (const entry of entries) tx.append(sessionId, 'entry.added', { entry })
    tx.changed({ session_id: sessionId, reason: 'changed', before: s, after: core.row(sessionId) })
    return {
      run_id: runId,
      input_ids: inputIds,
      through_order: through,
      provider_profile: s.provider_profile,
      model: s.model,
      effort: s.effort,
    }
  })
}
