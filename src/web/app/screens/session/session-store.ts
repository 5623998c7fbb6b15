// One session as the page knows it: the snapshot of its stream, then every frame applied in
// order. Committed history entries never change, so they are kept as the objects that came
// (a view skips rendering an entry it rendered already); what a run produces while it runs
// (active output, running tool calls) is kept apart until its entries are committed.
import type { Static } from 'typebox'
import type { ElicitationBlockingReason } from '../../../../schemas/elicitation.ts'
import type { HistoryEntry } from '../../../../schemas/history.ts'
import type { PendingInput } from '../../../../schemas/inputs.ts'
import type { SessionRead } from '../../../../schemas/session-read.ts'
import type { StreamFrame } from '../../api/stream.ts'

export type Entry = Static<typeof HistoryEntry>
export type Pending = Static<typeof PendingInput>

export interface ActiveOutput {
  contentId: string
  runId: string
  kind: 'text' | 'reasoning'
  index: number
  text: string
}

export interface RunningTool {
  callId: string
  runId: string
  name: string
  summary: string
  effect: string
  output: string
}

export interface ApprovalAsk {
  request_id: string
  tool: string
  summary: string
  effect: string
  /** The arguments as the model wrote them (JSON text); absent when only the snapshot named it. */
  arguments?: string
  call_id?: string
}

/** An MCP server's question, answered in place (question-card.tsx). */
export type Question = Static<typeof ElicitationBlockingReason>
export type Quarantined = SessionRead['composition']['quarantine'][number]

export type Phase = SessionRead['status']['phase']

/** Frames applied, as the tests and the bench read it from the page (data-* attributes). */
export interface StreamCounters {
  frames: number
  deltas: number
  lastId: string | undefined
}

export class SessionState {
  session: SessionRead | undefined
  entries: Entry[] = []
  /** Whether entries before the first held exist (read with history.list before=…). */
  hasOlder = false
  active = new Map<string, ActiveOutput>()
  tools = new Map<string, RunningTool>()
  approval: ApprovalAsk | undefined
  question: Question | undefined
  /** The MCP servers the session runs without (a sign-in notice for those that need one). */
  quarantine: Quarantined[] = []
  pending: Pending[] = []
  phase: Phase = 'idle'
  runId: string | null = null
  interruptRequested = false
  inputOrder = 0
  deleted = false
  lastRunProblem: string | undefined
  counters: StreamCounters = { frames: 0, deltas: 0, lastId: undefined }

  apply(f: StreamFrame): void {
    this.counters.frames++
    if (f.id) this.counters.lastId = f.id
    if (f.event === 'snapshot') {
      this.#snapshot((JSON.parse(f.data) as { session: SessionRead }).session)
      return
    }
    if (f.event === 'session.deleted') {
      this.deleted = true
      return
    }
    if (f.event === 'reset' || f.event === 'overflow') return
    const data = JSON.parse(f.data) as { payload?: Record<string, unknown>; omitted?: true }
    if (!data.payload) return // a frame too large for the stream: its content is in the history
    this.#event(f.event, data.payload)
  }

  #snapshot(s: SessionRead): void {
    this.session = s
    this.entries = s.history.items as Entry[]
    this.hasOlder = s.history.older !== null
    this.active.clear()
    for (const a of s.active_output as Array<Record<string, unknown>>)
      this.active.set(String(a.content_id), {
        contentId: String(a.content_id),
        runId: String(a.run_id),
        kind: a.kind === 'reasoning' ? 'reasoning' : 'text',
        index: Number(a.index ?? 0),
        text: String(a.text ?? ''),
      })
    this.tools.clear()
    for (const t of s.current_progress)
      this.tools.set(t.call_id, {
        callId: t.call_id,
        runId: t.run_id,
        name: t.name,
        summary: t.summary,
        effect: String((t as Record<string, unknown>).effect ?? ''),
        output: '',
      })
    // An approval and a server's question are each answered in place.
    const reason = s.status.blocking_reason
    this.approval = reason?.kind === 'approval' ? reason : undefined
    this.question = reason?.kind === 'elicitation' ? reason : undefined
    this.quarantine = s.composition.quarantine
    this.pending = s.pending_inputs as Pending[]
    this.phase = s.status.phase
    this.runId = s.status.run_id
    this.interruptRequested = s.status.interrupt_requested
    this.inputOrder = s.input_order
  }

  #event(kind: string, p: Record<string, any>): void {
    switch (kind) {
      case 'entry.added':
        this.#addEntry(p.entry as Entry)
        return
      case 'output.started':
        this.active.set(p.content_id, {
          contentId: p.content_id,
          runId: p.run_id,
          kind: p.kind,
          index: p.index,
          text: '',
        })
        return
      case 'output.delta': {
        this.counters.deltas++
        const a = this.active.get(p.content_id)
        if (a) a.text += p.delta
        return
      }
      case 'input.accepted':
        this.pending = [...this.pending, p.input as Pending]
        this.inputOrder = Math.max(this.inputOrder, (p.input as Pending).acceptance_order)
        if (this.phase === 'idle') this.phase = 'queued'
        return
      case 'input.cancelled':
        this.pending = this.pending.filter((i) => i.id !== p.input_id)
        return
      case 'run.started':
        this.pending = this.pending.filter((i) => !(p.input_ids as string[]).includes(i.id))
        this.phase = 'running'
        this.runId = p.run_id
        this.interruptRequested = false
        this.lastRunProblem = undefined
        return
      case 'run.interrupt_requested':
        this.interruptRequested = true
        this.phase = 'interrupting'
        return
      case 'run.ended':
        for (const [id, a] of this.active) if (a.runId === p.run_id) this.active.delete(id)
        for (const [id, t] of this.tools) if (t.runId === p.run_id) this.tools.delete(id)
        this.approval = undefined
        this.question = undefined
        this.phase = this.pending.length > 0 ? 'queued' : 'idle'
        this.runId = null
        this.interruptRequested = false
        this.lastRunProblem = p.outcome === 'failed' ? (p.problem?.detail ?? 'the run failed') : undefined
        return
      case 'tool.started':
        this.tools.set(p.call_id, {
          callId: p.call_id,
          runId: p.run_id,
          name: p.name,
          summary: p.summary,
          effect: p.effect,
          output: '',
        })
        return
      case 'tool.progress': {
        const t = this.tools.get(p.call_id)
        if (t) t.output += p.text
        return
      }
      case 'tool.ended':
        this.tools.delete(p.call_id)
        return
      case 'approval.requested':
        this.approval = p as ApprovalAsk
        this.phase = 'blocked'
        return
      case 'approval.decided':
        if (this.approval?.request_id === p.request_id) this.approval = undefined
        if (this.phase === 'blocked') this.phase = 'running'
        return
      case 'elicitation.requested': {
        const { run_id: _run, call_id: _call, ...question } = p
        this.question = question as Question
        this.phase = 'blocked'
        return
      }
      case 'elicitation.answered':
      case 'elicitation.expired':
        if (this.question?.request_id === p.request_id) this.question = undefined
        if (this.phase === 'blocked' && !this.approval) this.phase = 'running'
        return
      case 'composition.changed':
        this.quarantine = p.quarantine
        return
      case 'session.configured':
        if (this.session) this.session = { ...this.session, ...(p.changes as Partial<SessionRead>) }
        return
    }
  }

  #addEntry(e: Entry): void {
    const last = this.entries[this.entries.length - 1]
    if (last && e.position <= last.position) return // held already (a page read overlapped)
    this.entries = [...this.entries, e]
    // The committed text replaces what streamed for it.
    if (e.kind === 'assistant' || e.kind === 'reasoning') {
      const runId = (e.content as { run_id?: string }).run_id
      const kind = e.kind === 'assistant' ? 'text' : 'reasoning'
      for (const [id, a] of this.active) if (a.runId === runId && a.kind === kind) this.active.delete(id)
    }
  }

  /** Puts a page of older entries before those held. */
  prepend(items: Entry[], more: boolean): void {
    const first = this.entries[0]?.position ?? Number.POSITIVE_INFINITY
    this.entries = [...items.filter((e) => e.position < first), ...this.entries]
    this.hasOlder = more
  }
}
