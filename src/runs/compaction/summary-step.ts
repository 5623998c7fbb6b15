// A step outside any run (a compaction's summary): one model call without tools, sent to the
// session's kernel under a step id of its own (`compaction:<id>`), its text collected until
// the step ends. The kernel streams it like any step; nothing here is written to the
// session's log.
import type { Kernel } from '../../kernel/pool.ts'
import type { FromKernel, StepTransport } from '../../kernel/protocol.ts'
import type { NeutralRequest, NeutralUsage } from '../../providers/types.ts'
import { HearthError, type ProblemCode } from '../../schemas/problems.ts'

export interface ModelAnswer {
  text: string
  usage: NeutralUsage | null
}

/**
 * Sends `request` (no tools) as step `id` and resolves with the answer's text; rejects with
 * a HearthError.
 */
export function callModel(
  kernel: Kernel,
  transport: StepTransport,
  request: NeutralRequest,
  id: string,
  signal?: AbortSignal,
): Promise<ModelAnswer> {
  return new Promise<ModelAnswer>((resolve, reject) => {
    const texts = new Map<number, string>()
    let usage: NeutralUsage | null = null
    let failure: HearthError | undefined
    let done = false
    const end = (err?: HearthError) => {
      kernel.sideSteps.delete(id)
      kernel.host.forget(id)
      signal?.removeEventListener('abort', onAbort)
      if (err) return reject(err)
      const text = [...texts.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([, t]) => t)
        .join('')
      resolve({ text, usage })
    }
    const onAbort = () => kernel.send({ type: 'abort', step_id: id, run_id: null })
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
      } else if (msg.type === 'step_ended') {
        if (failure) end(failure)
        else if (!done)
          end(new HearthError('upstream_incomplete', 'The summary request ended without a result'))
        else end()
      }
    }
    kernel.sideSteps.set(id, {
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
    kernel.send({ type: 'step', step_id: id, run_id: null, ...transport, request })
  })
}
