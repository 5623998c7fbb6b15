// One model request that is not a step of a run (a compaction's summary): sent to the
// session's kernel under a turn id of its own, its text collected until the turn ends. The
// kernel streams it like any turn; nothing here is written to the session's log.
import { v7 as uuidv7 } from 'uuid'
import type { Kernel } from '../../kernel/pool.ts'
import type { FromKernel, TurnLimits } from '../../kernel/protocol.ts'
import type { NeutralRequest, NeutralUsage, TransportProfile } from '../../providers/types.ts'
import { HearthError, type ProblemCode } from '../../schemas/problems.ts'

export interface ModelTurn {
  extension: string
  profile: TransportProfile
  limits: TurnLimits
}

export interface ModelAnswer {
  text: string
  usage: NeutralUsage | null
}

/** Sends `request` (no tools) and resolves with the answer's text; rejects with a HearthError. */
export function callModel(
  kernel: Kernel,
  turn: ModelTurn,
  request: NeutralRequest,
  signal?: AbortSignal,
): Promise<ModelAnswer> {
  const id = uuidv7()
  return new Promise<ModelAnswer>((resolve, reject) => {
    const texts = new Map<number, string>()
    let usage: NeutralUsage | null = null
    let failure: HearthError | undefined
    let done = false
    const end = (err?: HearthError) => {
      kernel.sideTurns.delete(id)
      kernel.host.forget(id)
      signal?.removeEventListener('abort', onAbort)
      if (err) return reject(err)
      const text = [...texts.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([, t]) => t)
        .join('')
      resolve({ text, usage })
    }
    const onAbort = () => kernel.send({ type: 'abort', run_id: id })
    const onMessage = (msg: FromKernel) => {
      if (msg.type === 'events') {
        for (const e of msg.events) {
          if (e.type === 'text_delta') texts.set(e.index, (texts.get(e.index) ?? '') + e.delta)
          else if (e.type === 'usage') usage = e.usage
          else if (e.type === 'done') done = true
          else if (e.type === 'error')
            failure =
              e.code === 'aborted'
                ? new HearthError('compaction_failed', 'The compaction was interrupted')
                : new HearthError(e.code as ProblemCode, e.message)
        }
      } else if (msg.type === 'turn_ended') {
        if (failure) end(failure)
        else if (!done)
          end(new HearthError('upstream_incomplete', 'The summary request ended without a result'))
        else end()
      }
    }
    kernel.sideTurns.set(id, {
      onMessage,
      onExit: (code, sig) =>
        end(
          new HearthError(
            'kernel_crashed',
            `The kernel exited (${sig ?? `code ${code}`}) during the compaction`,
          ),
        ),
    })
    signal?.addEventListener('abort', onAbort, { once: true })
    kernel.send({ type: 'turn', run_id: id, ...turn, request })
  })
}
